import { Resolver } from 'node:dns/promises';
import type { DnsAnswer, DnsFailure, DnsResolver } from '@outbound/core/ports/dns';

export interface DnsResolverOptions {
  /** DNS_SERVERS as `host:port`; undefined or empty for the system's resolver. */
  servers?: string[];
  /** Each lookup gives up after this long (default 3 s) and answers 'timeout'. */
  timeoutMs?: number;
}

/** node:dns error codes (c-ares) as the port's reasons. */
function classify(code: string | undefined): DnsFailure {
  switch (code) {
    case 'ENODATA':
      return 'nodata';
    case 'ENOTFOUND':
      return 'nxdomain';
    case 'ETIMEOUT':
      return 'timeout';
    default:
      return 'error';
  }
}

/**
 * The DnsResolver port over node:dns/promises. One Resolver per process, bound
 * to DNS_SERVERS when set, so every lookup of the domain check goes where the
 * operator said. A timer bounds the whole lookup, since with several servers
 * c-ares would try each of them in turn.
 */
export function dnsResolver(opts: DnsResolverOptions = {}): DnsResolver {
  const timeoutMs = opts.timeoutMs ?? 3000;
  // Two tries (a lost UDP packet gets a second chance), each within half the budget.
  const resolver = new Resolver({ timeout: Math.ceil(timeoutMs / 2), tries: 2 });
  if (opts.servers?.length) resolver.setServers(opts.servers);

  async function lookup<T>(run: () => Promise<T[]>): Promise<DnsAnswer<T>> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<DnsAnswer<T>>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, reason: 'timeout', detail: `no answer in ${timeoutMs} ms` }), timeoutMs + 250);
    });
    const answer = run().then(
      (records): DnsAnswer<T> => ({ ok: true, records }),
      (err: NodeJS.ErrnoException): DnsAnswer<T> => ({ ok: false, reason: classify(err.code), detail: err.code ?? err.message }),
    );
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    txt: (name) => lookup(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))),
    a: (name) => lookup(() => resolver.resolve4(name)),
    mx: (name) => lookup(() => resolver.resolveMx(name)),
  };
}
