/**
 * DNS lookups (adapter: packages/mail/src/dns-resolver.ts over node:dns with
 * the servers DNS_SERVERS names). The adapter never throws: every failure is
 * classified, so a rule can tell "there is no such record" (a finding) from
 * "the lookup did not work" (not a finding).
 */
export type DnsFailure =
  /** The name exists but has no record of the type asked. */
  | 'nodata'
  /** The name does not exist (NXDOMAIN). */
  | 'nxdomain'
  /** No answer in time. */
  | 'timeout'
  /** Anything else: SERVFAIL, REFUSED, a malformed answer, no server reachable. */
  | 'error';

export type DnsAnswer<T> = { ok: true; records: T[] } | { ok: false; reason: DnsFailure; detail?: string };

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface DnsResolver {
  /**
   * TXT records of a name, each one string: the record's character-strings
   * joined without separators (RFC 7208 §3.3, RFC 6376 §3.6.2.2), so a DKIM
   * key split at 255 bytes comes back whole.
   */
  txt(name: string): Promise<DnsAnswer<string>>;
  /** IPv4 addresses of a name, dotted. */
  a(name: string): Promise<DnsAnswer<string>>;
  mx(name: string): Promise<DnsAnswer<MxRecord>>;
}
