/**
 * The stand-in for the `sst` binary's RPC server (SST_SERVER): the platform
 * code asks it to build functions and for the account's bootstrap bucket.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runtimeBuild, type BuildInput } from './builder.ts';

export async function startRpc(paths: { root: string; work: string; cache: string }) {
  const methods: Record<string, (args: any) => Promise<unknown>> = {
    'Runtime.Build': (args: BuildInput) => runtimeBuild(args, paths),
    'Provider.Aws.Bootstrap': async () => ({
      asset: 'sst-asset-rehearsal',
      assetEcrRegistryId: '123456789012',
      assetEcrUrl: '123456789012.dkr.ecr.us-east-1.amazonaws.com/sst-asset',
      state: 'sst-state-rehearsal',
    }),
    'Provider.Aws.Appsync': async () => ({ http: '', realtime: '' }),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const { method, params } = JSON.parse(body) as { method: string; params: unknown[] };
      const fn = methods[method];
      const reply = fn
        ? await fn(params[0]).then(
            (result) => ({ result }),
            (err: Error) => ({ error: err.message }),
          )
        : { error: `rpc: can't find method ${method}` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
