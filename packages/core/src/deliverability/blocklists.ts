import type { DnsResolver } from '../ports/dns.ts';
import { BLOCKLISTS, type BlocklistDetail, type BlocklistId, type Status } from './types.ts';

/** docs/api.md, Domain checks: 127.0.0.2–127.0.0.255 and 127.0.1.0–127.0.1.255 mean listed. */
export function isListingAnswer(address: string): boolean {
  const o = address.split('.').map(Number);
  if (o.length !== 4 || o[0] !== 127 || o[1] !== 0) return false;
  return (o[2] === 0 && o[3]! >= 2 && o[3]! <= 255) || (o[2] === 1 && o[3]! >= 0 && o[3]! <= 255);
}

export interface BlocklistFinding extends BlocklistDetail {
  status: Status;
}

/**
 * One operator's verdict on the domain (guardrail 10). Only a listing answer
 * is FAIL. The operators' refusal (127.0.0.1: queries through public or
 * high-volume resolvers are refused) and error codes (127.255.255.x), and a
 * lookup that does not answer, say nothing about the domain: PASS, with
 * `checked: false` and a reason that starts "Could not check", so nobody
 * mistakes it for a clean bill.
 */
export async function checkBlocklist(dns: DnsResolver, domain: string, id: BlocklistId): Promise<BlocklistFinding> {
  const query = `${domain}.${BLOCKLISTS[id]}`;
  const answer = await dns.a(query);
  if (!answer.ok) {
    if (answer.reason === 'nxdomain' || answer.reason === 'nodata')
      return { status: 'PASS', query, answers: [], checked: true, reason: `Not listed by ${id}.` };
    const reason =
      answer.reason === 'timeout'
        ? `Could not check: the ${id} lookup timed out. That is not a listing, but the domain could not be checked against ${id} this time.`
        : `Could not check: the ${id} lookup failed${answer.detail ? ` (${answer.detail})` : ''}. That is not a listing, but the domain could not be checked against ${id} this time.`;
    return { status: 'PASS', query, answers: [], checked: false, reason };
  }
  const answers = answer.records;
  const listed = answers.filter(isListingAnswer);
  if (listed.length) {
    return {
      status: 'FAIL',
      query,
      answers,
      checked: true,
      reason: `Listed by ${id} (answer ${listed.join(', ')}). Mail that mentions the domain is likely to be filtered.`,
    };
  }
  if (answers.includes('127.0.0.1')) {
    return {
      status: 'PASS',
      query,
      answers,
      checked: false,
      reason: `Could not check: ${id} refused the query (answer 127.0.0.1): operators refuse lookups through public or busy resolvers, AWS's included. That is not a listing; query through a resolver of your own (DNS_SERVERS) to get a verdict.`,
    };
  }
  const errors = answers.filter((a) => a.startsWith('127.255.255.'));
  if (errors.length) {
    return {
      status: 'PASS',
      query,
      answers,
      checked: false,
      reason: `Could not check: ${id} answered with an error code (${errors.join(', ')}), not a listing: the operator refused or could not serve the query.`,
    };
  }
  return {
    status: 'PASS',
    query,
    answers,
    checked: true,
    reason: `${id} gave an answer that is not a listing code (${answers.join(', ')}).`,
  };
}
