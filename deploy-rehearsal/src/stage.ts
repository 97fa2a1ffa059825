/**
 * Rehearses one stage, inside the bundle that also holds SST's platform code
 * and sst.config.ts (cli.ts makes it): answers SST's RPC calls, sets Pulumi's
 * mocks, evaluates the config's `app()` then runs its `run()` through SST's
 * own `run` (which adds SST's name and removal checks), waits for every
 * output, and writes what was asked of AWS to a report.
 */
import * as pulumi from '@pulumi/pulumi';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createMocks } from './mocks.ts';
import type { Recorded, StageReport } from './report.ts';
import { startRpc } from './rpc-server.ts';

interface Config {
  app(input: { stage: string }): Record<string, unknown>;
  run(): Promise<unknown>;
}

export async function rehearse(config: Config, run: (program: () => Promise<unknown>) => Promise<unknown>) {
  const stage = process.env.REHEARSAL_STAGE!;
  const paths = {
    root: process.env.REHEARSAL_ROOT!,
    work: process.env.REHEARSAL_WORK!,
    cache: process.env.REHEARSAL_CACHE!,
    platform: process.env.REHEARSAL_PLATFORM!,
  };
  const errors: string[] = [];
  const note = (err: unknown) => errors.push(err instanceof Error ? err.message : String(err));
  // An output that fails inside SST (a duplicate bucket policy, a build error) rejects a promise nobody awaits.
  process.on('unhandledRejection', note);
  process.on('uncaughtException', note);

  const rpc = await startRpc(paths);
  process.env.SST_SERVER = rpc.url;
  const recorded: Recorded[] = [];
  const require = createRequire(import.meta.url);
  const graph = recordDependencies(require('@pulumi/pulumi/runtime/mocks').MockMonitor);
  await pulumi.runtime.setMocks(createMocks(recorded), 'outbound', stage, false);

  const options: Record<string, { retainOnDelete?: boolean; protect?: boolean }> = {};
  try {
    // As the Pulumi program SST runs: inside the stack resource, which stack transformations need.
    await pulumi.runtime.runInPulumiStack(
      () =>
        run(() => {
          // Registered after SST's own transformations, so it sees the options they set (removal: retain).
          pulumi.runtime.registerStackTransformation((args) => {
            options[`${args.type}::${args.name}`] = { retainOnDelete: args.opts.retainOnDelete, protect: args.opts.protect };
            return undefined;
          });
          return config.run();
        }) as Promise<any>,
    );
  } catch (err) {
    note(err);
  }
  // Pulumi's internal queue of registrations and invokes: done when every output has resolved.
  const settings = require('@pulumi/pulumi/runtime/settings');
  await settings.waitForRPCs();
  await new Promise((r) => setTimeout(r, 50));
  rpc.close();
  for (const r of recorded) Object.assign(r, options[`${r.type}::${r.name}`] ?? {}, graph[`${r.type}::${r.name}`] ?? {});
  const report: StageReport = { stage, resources: recorded, errors };
  writeFileSync(process.env.REHEARSAL_REPORT!, JSON.stringify(report));
  process.exit(0);
}

interface RegisterRequest {
  getType(): string;
  getName(): string;
  getDependenciesList(): string[];
}
type Callback = (err: unknown, res?: { getUrn(): string }) => void;

/**
 * The dependencies each registration carries to the engine (Pulumi's mocks do not hand them to newResource): what
 * orders a real deploy, so a check can hold a resource to be made after another (checks.ts, route settings).
 */
function recordDependencies(monitor: { prototype: { registerResource(req: RegisterRequest, callback: Callback): unknown } }) {
  const graph: Record<string, { urn: string; dependencies: string[] }> = {};
  const register = monitor.prototype.registerResource;
  monitor.prototype.registerResource = function (req, callback) {
    return register.call(this, req, (err, res) => {
      if (!err && res) graph[`${req.getType()}::${req.getName()}`] = { urn: res.getUrn(), dependencies: req.getDependenciesList() };
      callback(err, res);
    });
  };
  return graph;
}
