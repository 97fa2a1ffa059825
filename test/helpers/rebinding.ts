import { request } from 'node:http';

/**
 * The status a local stand-in answers to a request as a browser on a DNS
 * rebinding page sends it: to 127.0.0.1, but with the attacker's own name in
 * Host. `target` is the AWS operation (x-amz-target) the page tries.
 */
export function rebindingStatus(endpoint: string, target: string, contentType: string): Promise<number> {
  const port = Number(new URL(endpoint).port);
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: { host: `rebind.attacker.example:${port}`, 'x-amz-target': target, 'content-type': contentType },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}
