import { randomBytes } from 'node:crypto';
import { createServer, isIP } from 'node:net';

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

/**
 * Whether a request's Host header names this machine's server in a way a
 * browser on a rebinding page cannot: an IP address, `localhost`, or one of
 * `names`. DNS rebinding points an attacker's name at 127.0.0.1, so a request
 * carrying a name we did not choose is refused, whatever address it reached.
 */
export function hostAllowed(header: string | undefined, names: readonly string[] = []): boolean {
  if (!header) return false;
  const hostname = /^\[([^\]]+)\](?::\d+)?$/.exec(header)?.[1] ?? header.replace(/:\d+$/, '');
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return isIP(name) !== 0 || name === 'localhost' || names.includes(name);
}

/** Credentials made at each start for one stand-in: only the engine's own client is handed them. */
export function startCredentials(): { accessKeyId: string; secretAccessKey: string } {
  return { accessKeyId: `LOCAL${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(32).toString('base64url') };
}
