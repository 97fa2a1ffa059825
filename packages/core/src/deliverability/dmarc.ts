import type { DnsResolver } from '../ports/dns.ts';
import type { Status } from './types.ts';

export interface DmarcFinding {
  status: Status;
  records: string[];
  policy: string | null;
  reason: string;
}

/** RFC 7489 §6.6.3: only records starting with v=DMARC1 count. */
const isDmarcRecord = (txt: string) => /^\s*v\s*=\s*DMARC1\s*(;|$)/i.test(txt);

const POLICIES = ['none', 'quarantine', 'reject'];

/**
 * DMARC at _dmarc.<domain> (RFC 7489): exactly one v=DMARC1 record (with two,
 * receivers apply none) carrying a p= policy of none, quarantine or reject.
 */
export async function checkDmarc(dns: DnsResolver, domain: string): Promise<DmarcFinding> {
  const name = `_dmarc.${domain}`;
  const answer = await dns.txt(name);
  if (!answer.ok && (answer.reason === 'timeout' || answer.reason === 'error')) {
    return {
      status: 'FAIL',
      records: [],
      policy: null,
      reason: `The lookup of ${name} ${answer.reason === 'timeout' ? 'timed out' : 'failed'}, so DMARC could not be checked.`,
    };
  }
  const records = answer.ok ? answer.records.filter(isDmarcRecord) : [];
  if (records.length === 0) {
    return { status: 'FAIL', records, policy: null, reason: `No DMARC record: ${name} has no TXT record starting with v=DMARC1.` };
  }
  if (records.length > 1) {
    return {
      status: 'FAIL',
      records,
      policy: null,
      reason: `There are ${records.length} DMARC records at ${name}; receivers then ignore DMARC altogether (RFC 7489 §6.6.3). Keep one.`,
    };
  }
  const tags = new Map<string, string>();
  for (const part of records[0]!.split(';')) {
    const m = /^\s*([A-Za-z]+)\s*=\s*(.*?)\s*$/.exec(part);
    if (m && !tags.has(m[1]!.toLowerCase())) tags.set(m[1]!.toLowerCase(), m[2]!);
  }
  const p = tags.get('p');
  if (p === undefined || p === '') {
    return { status: 'FAIL', records, policy: null, reason: 'The DMARC record has no policy (p=none, p=quarantine or p=reject).' };
  }
  const policy = p.toLowerCase();
  if (!POLICIES.includes(policy)) {
    return { status: 'FAIL', records, policy: null, reason: `The DMARC policy p=${p} is not one of none, quarantine or reject.` };
  }
  const meaning =
    policy === 'none'
      ? 'p=none: receivers only report, they take no action on mail that fails.'
      : policy === 'quarantine'
        ? 'p=quarantine: mail that fails goes to spam.'
        : 'p=reject: mail that fails is refused.';
  return {
    status: 'PASS',
    records,
    policy,
    reason: `One DMARC record with ${meaning}${tags.has('rua') ? '' : ' It has no rua= address, so no one receives aggregate reports.'}`,
  };
}
