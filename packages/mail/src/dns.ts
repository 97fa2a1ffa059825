import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** `host:port` strings as DNS_SERVERS lists them, checked. */
export function parseDnsServers(value: string | undefined): string[] | undefined {
  if (!value?.trim()) return undefined;
  return value.split(',').map((s) => {
    const server = s.trim();
    if (!/^[^\s:]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/i.test(server)) throw new Error(`DNS_SERVERS: "${server}" is not host:port.`);
    return server;
  });
}

/**
 * A host-to-address resolver bound to DNS_SERVERS, or undefined to use the
 * system's. Every lookup the engine makes goes through the servers it is given.
 */
export function hostResolver(servers: string[] | undefined): ((host: string) => Promise<string>) | undefined {
  if (!servers?.length) return undefined;
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers(servers);
  return async (host) => {
    if (isIP(host)) return host;
    try {
      const [v4] = await resolver.resolve4(host);
      if (v4) return v4;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENODATA') throw err;
    }
    const [v6] = await resolver.resolve6(host);
    if (!v6) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' });
    return v6;
  };
}
