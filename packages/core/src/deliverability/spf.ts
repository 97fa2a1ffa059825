import { isIPv4, isIPv6 } from 'node:net';
import type { DnsAnswer, DnsResolver } from '../ports/dns.ts';
import type { Status } from './types.ts';

/** RFC 7208 §4.6.4: evaluating a record may cause at most 10 DNS-querying terms. */
export const SPF_LOOKUP_LIMIT = 10;

export type Qualifier = '+' | '-' | '~' | '?';
export type MechanismName = 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';

export interface Mechanism {
  kind: 'mechanism';
  qualifier: Qualifier;
  name: MechanismName;
  /** The domain-spec or network after the colon, when there is one. */
  value?: string;
}

export interface Modifier {
  kind: 'modifier';
  name: string;
  value: string;
}

export type SpfTerm = Mechanism | Modifier;

export type ParsedSpf = { ok: true; terms: SpfTerm[] } | { ok: false; error: string };

/** RFC 7208 §4.5: a record is an SPF record when it starts with "v=spf1" followed by a space or its end. */
export const isSpfRecord = (txt: string) => /^v=spf1(\s|$)/i.test(txt);

/** The mechanisms that make a DNS query (RFC 7208 §4.6.4); the redirect modifier counts too. */
const QUERYING: ReadonlySet<MechanismName> = new Set(['include', 'a', 'mx', 'ptr', 'exists']);
const MECHANISMS: ReadonlySet<string> = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);

/** A domain-spec (RFC 7208 §7.1): a name, or a macro string that is only expanded at a receiver. */
function validDomainSpec(spec: string): boolean {
  if (!spec || !/^[\x21-\x7e]+$/.test(spec)) return false;
  if (spec.includes('%')) return /^(?:[^%]|%\{[slodiphcrtv]\d*r?[.\-+,/_=]*\}|%%|%_|%-)+$/i.test(spec);
  return /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)+\.?$/i.test(spec);
}

const cidr = (bits: string | undefined, max: number) => bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);

/** One mechanism's argument, per the grammar of RFC 7208 §5. Returns the problem, or null. */
function mechanismProblem(name: MechanismName, rest: string): string | null {
  const arg = rest.startsWith(':') ? rest.slice(1) : undefined;
  switch (name) {
    case 'all':
      return rest ? '"all" takes no argument' : null;
    case 'include':
    case 'exists':
      return arg !== undefined && validDomainSpec(arg) ? null : `"${name}" needs a domain, as in ${name}:_spf.example.com`;
    case 'ptr':
      return rest === '' || (arg !== undefined && validDomainSpec(arg)) ? null : `"ptr" has an invalid domain`;
    case 'a':
    case 'mx': {
      // [":" domain-spec] [ "/" ip4-cidr ] [ "//" ip6-cidr ]
      const m = /^(?::([^/]*))?(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(rest);
      if (!m) return `"${name}" has an invalid argument`;
      if (m[1] !== undefined && !validDomainSpec(m[1])) return `"${name}" has an invalid domain "${m[1]}"`;
      return cidr(m[2], 32) && cidr(m[3], 128) ? null : `"${name}" has an invalid prefix length`;
    }
    case 'ip4':
    case 'ip6': {
      if (arg === undefined) return `"${name}" needs an address, as in ${name === 'ip4' ? 'ip4:192.0.2.0/24' : 'ip6:2001:db8::/32'}`;
      const slash = arg.lastIndexOf('/');
      const address = slash < 0 ? arg : arg.slice(0, slash);
      const bits = slash < 0 ? undefined : arg.slice(slash + 1);
      const valid = name === 'ip4' ? isIPv4(address) && cidr(bits, 32) : isIPv6(address) && cidr(bits, 128);
      return valid ? null : `"${arg}" is not a valid ${name === 'ip4' ? 'IPv4' : 'IPv6'} network`;
    }
  }
}

/** Parses an SPF record's terms (RFC 7208 §4.6.1, §12); the first syntax error fails the record. */
export function parseSpf(record: string): ParsedSpf {
  const terms: SpfTerm[] = [];
  const seen = new Set<string>();
  for (const term of record.trim().split(/\s+/).slice(1)) {
    const m = /^([+\-~?]?)([a-z][a-z0-9_.-]*)(.*)$/i.exec(term);
    if (!m) return { ok: false, error: `"${term}" is not an SPF term` };
    const [, qualifier = '', rawName = '', rest = ''] = m;
    const name = rawName.toLowerCase();
    if (rest.startsWith('=') && !qualifier) {
      // Modifiers: redirect and exp at most once each (§6); unknown ones are allowed and ignored.
      if ((name === 'redirect' || name === 'exp') && seen.has(name)) return { ok: false, error: `"${name}=" appears more than once` };
      const value = rest.slice(1);
      if ((name === 'redirect' || name === 'exp') && !validDomainSpec(value)) return { ok: false, error: `"${name}=" needs a domain` };
      seen.add(name);
      terms.push({ kind: 'modifier', name, value });
      continue;
    }
    if (!MECHANISMS.has(name)) return { ok: false, error: `"${term}" is not a known mechanism` };
    const problem = mechanismProblem(name as MechanismName, rest);
    if (problem) return { ok: false, error: problem };
    const value = rest.startsWith(':') ? rest.slice(1) : undefined;
    terms.push({ kind: 'mechanism', qualifier: (qualifier || '+') as Qualifier, name: name as MechanismName, value });
  }
  return { ok: true, terms };
}

/** The `all` mechanism that lets every sender pass (`+all`, or a bare `all`, whose qualifier is +). */
const passesEveryone = (terms: SpfTerm[]) => terms.some((t) => t.kind === 'mechanism' && t.name === 'all' && t.qualifier === '+');

/** RFC 7208 §6.1: redirect applies only when the record has no `all` mechanism. */
function redirectOf(terms: SpfTerm[]): string | undefined {
  if (terms.some((t) => t.kind === 'mechanism' && t.name === 'all')) return undefined;
  const r = terms.find((t): t is Modifier => t.kind === 'modifier' && t.name === 'redirect');
  return r?.value;
}

const failureWords = (answer: Extract<DnsAnswer<string>, { ok: false }>) =>
  answer.reason === 'timeout' ? 'the lookup timed out' : answer.reason === 'error' ? 'the lookup failed' : 'there is no SPF record there';

export interface SpfFinding {
  status: Status;
  /** The v=spf1 records at the domain. */
  records: string[];
  /** DNS-querying terms counted through includes and redirects. */
  lookups: number;
  reason: string;
}

interface Walk {
  lookups: number;
  problems: string[];
}

/** The one SPF record of a referenced domain, or why there is none (a permanent error at a receiver). */
async function spfRecordOf(dns: DnsResolver, domain: string): Promise<{ terms: SpfTerm[] } | { problem: string }> {
  const answer = await dns.txt(domain);
  if (!answer.ok) return { problem: failureWords(answer) };
  const records = answer.records.filter(isSpfRecord);
  if (records.length === 0) return { problem: 'there is no SPF record there' };
  if (records.length > 1) return { problem: `there are ${records.length} SPF records there` };
  const parsed = parseSpf(records[0]!);
  if (!parsed.ok) return { problem: `its record has a syntax error: ${parsed.error}` };
  return { terms: parsed.terms };
}

/**
 * Counts the DNS-querying terms of a record and, recursively, of the records
 * its includes and redirect name (RFC 7208 §4.6.4). A macro domain can only be
 * expanded by a receiver, so it counts once and is not followed. `chain` holds
 * the domains above this record, to stop a loop.
 */
async function walk(dns: DnsResolver, terms: SpfTerm[], chain: string[], w: Walk): Promise<void> {
  const follow: { label: string; domain: string; passing: boolean }[] = [];
  for (const t of terms) {
    if (t.kind === 'mechanism' && QUERYING.has(t.name)) {
      w.lookups++;
      if (t.name === 'include' && t.value && !t.value.includes('%')) {
        follow.push({ label: `include:${t.value}`, domain: t.value, passing: t.qualifier === '+' });
      }
    }
  }
  const redirect = redirectOf(terms);
  if (redirect !== undefined) {
    w.lookups++;
    if (!redirect.includes('%')) follow.push({ label: `redirect=${redirect}`, domain: redirect, passing: true });
  }
  if (w.lookups > SPF_LOOKUP_LIMIT) return;

  await Promise.all(
    follow.map(async (f) => {
      const domain = f.domain.toLowerCase().replace(/\.$/, '');
      if (chain.includes(domain)) {
        w.problems.push(`${f.label} loops back to a record that includes it`);
        return;
      }
      const target = await spfRecordOf(dns, domain);
      if ('problem' in target) {
        w.problems.push(`${f.label} cannot be used: ${target.problem}`);
        return;
      }
      // An include that passes on the target's +all, or a redirect to +all, lets every server pass.
      if (f.passing && passesEveryone(target.terms)) w.problems.push(`${f.label} allows every server on the internet (+all)`);
      if (w.lookups > SPF_LOOKUP_LIMIT) return;
      await walk(dns, target.terms, [...chain, domain], w);
    }),
  );
}

/**
 * SPF at the domain (RFC 7208): exactly one v=spf1 TXT record, valid syntax,
 * at most 10 DNS-querying terms counted through includes and redirects, and
 * no `+all` (a bare `all` means `+all`), which would let anyone send as the domain.
 */
export async function checkSpf(dns: DnsResolver, domain: string): Promise<SpfFinding> {
  const answer = await dns.txt(domain);
  if (!answer.ok && (answer.reason === 'timeout' || answer.reason === 'error')) {
    const how = answer.reason === 'timeout' ? 'timed out' : 'failed';
    return { status: 'FAIL', records: [], lookups: 0, reason: `The TXT lookup of ${domain} ${how}, so SPF could not be checked.` };
  }
  const records = answer.ok ? answer.records.filter(isSpfRecord) : [];
  if (records.length === 0) {
    return {
      status: 'FAIL',
      records,
      lookups: 0,
      reason: `No SPF record: ${domain} has no TXT record starting with v=spf1, so receivers cannot tell which servers may send for it.`,
    };
  }
  if (records.length > 1) {
    return {
      status: 'FAIL',
      records,
      lookups: 0,
      reason: `There are ${records.length} SPF records; a domain may have only one (RFC 7208 §4.5), so receivers treat SPF as broken. Merge them into one record.`,
    };
  }
  const parsed = parseSpf(records[0]!);
  if (!parsed.ok) return { status: 'FAIL', records, lookups: 0, reason: `The SPF record has a syntax error: ${parsed.error}.` };
  if (passesEveryone(parsed.terms)) {
    return {
      status: 'FAIL',
      records,
      lookups: 0,
      reason:
        'The SPF record ends in +all (a bare "all" means +all), which lets every server on the internet send as this domain. Use ~all or -all.',
    };
  }

  const w: Walk = { lookups: 0, problems: [] };
  await walk(dns, parsed.terms, [domain.toLowerCase()], w);
  if (w.lookups > SPF_LOOKUP_LIMIT) {
    return {
      status: 'FAIL',
      records,
      lookups: w.lookups,
      reason: `The SPF record needs more than ${SPF_LOOKUP_LIMIT} DNS lookups (counting include, a, mx, ptr, exists and redirect through every include), so receivers stop with an error (RFC 7208 §4.6.4). Remove includes you no longer use, or replace some with ip4/ip6 ranges.`,
    };
  }
  if (w.problems.length) {
    return { status: 'FAIL', records, lookups: w.lookups, reason: `The SPF record is broken: ${w.problems.join('; ')}.` };
  }
  const ptr = parsed.terms.some((t) => t.kind === 'mechanism' && t.name === 'ptr');
  return {
    status: 'PASS',
    records,
    lookups: w.lookups,
    reason: `One valid SPF record using ${w.lookups} of ${SPF_LOOKUP_LIMIT} DNS lookups.${ptr ? ' It uses "ptr", which RFC 7208 advises against: some receivers ignore it.' : ''}`,
  };
}
