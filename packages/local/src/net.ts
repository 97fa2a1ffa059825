import { createServer } from 'node:net';

/** Stand-ins accept any credentials; these keep the SDK from looking for real ones. */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A port nothing listens on right now, for a child process that must be told one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
