import { createPublicKey, type KeyObject } from 'node:crypto';
import type { DnsResolver } from '../ports/dns.ts';
import type { DkimStatus, Status } from './types.ts';

/**
 * Selectors the big mail providers and sending services publish, in the order
 * they are tried (docs/api.md, Domain checks): Google Workspace,
 * Microsoft 365, Mailchimp/Mandrill, SendGrid, then the usual hand-made names.
 */
export const COMMON_SELECTORS = [
  'google',
  'selector1',
  'selector2',
  'k1',
  'k2',
  'k3',
  's1',
  's2',
  'default',
  'dkim',
  'mail',
  'smtp',
  'mandrill',
  'everlytic',
  'mxvault',
  'zmail',
  'sig1',
  'protonmail',
  'fm1',
] as const;

export interface DkimFinding {
  status: DkimStatus;
  /** The selector whose record decided, or null when none was found. */
  selector: string | null;
  selectorsTried: string[];
  records: string[];
  reason: string;
}

/** A TXT record that is meant as a DKIM key: it starts with v=DKIM1 or carries a p= tag. */
const looksLikeDkim = (txt: string) => /^\s*v\s*=\s*DKIM1\s*(;|$)/i.test(txt) || /(^|;)\s*p\s*=/i.test(txt);

/** Tag=value pairs (RFC 6376 §3.2); whitespace inside values is folding and is dropped. Null when malformed. */
function parseTags(record: string): Map<string, string> | { error: string } {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    if (!part.trim()) continue;
    const m = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*=(.*)$/s.exec(part);
    if (!m) return { error: `"${part.trim()}" is not a tag=value pair` };
    const tag = m[1]!.toLowerCase();
    if (tags.has(tag)) return { error: `the tag ${tag}= appears twice` };
    tags.set(tag, m[2]!.replace(/\s+/g, ''));
  }
  return tags;
}

const fail = (reason: string) => ({ status: 'FAIL' as Status, reason });

/**
 * Whether a DKIM key record can verify signatures (RFC 6376 §3.6.1): v=DKIM1
 * first when present, a known key type, a service type that covers email,
 * and a p= that is base64 of a plausible key. An empty p= is a revoked key.
 */
export function evaluateDkimRecord(record: string): { status: Status; reason: string } {
  const tags = parseTags(record);
  if (!(tags instanceof Map)) return fail(`The DKIM record is malformed: ${tags.error}.`);
  const v = tags.get('v');
  if (v !== undefined && (v !== 'DKIM1' || [...tags.keys()][0] !== 'v')) {
    return fail('The DKIM record is malformed: v= must come first and be DKIM1.');
  }
  const k = (tags.get('k') ?? 'rsa').toLowerCase();
  if (k !== 'rsa' && k !== 'ed25519') return fail(`The DKIM record names an unknown key type k=${k}.`);
  const services = tags.get('s')?.toLowerCase().split(':');
  if (services && !services.includes('*') && !services.includes('email')) {
    return fail('The DKIM record is limited to other services (s=) and cannot verify email.');
  }
  const p = tags.get('p');
  if (p === undefined) return fail('The DKIM record has no public key (no p= tag).');
  if (p === '') return fail('The DKIM key is revoked: p= is empty, so every signature made with it fails.');
  if (p.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(p)) return fail('The DKIM public key (p=) is not valid base64.');
  const bytes = Buffer.from(p, 'base64');

  if (k === 'ed25519') {
    // RFC 8463 §4.2: the raw 32-byte key, not wrapped in ASN.1.
    return bytes.length === 32
      ? { status: 'PASS', reason: 'An Ed25519 DKIM key.' }
      : fail(`The DKIM public key is not an Ed25519 key: it has ${bytes.length} bytes instead of 32.`);
  }
  let key: KeyObject | undefined;
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      key = createPublicKey({ key: bytes, format: 'der', type });
      break;
    } catch {
      /* try the next encoding */
    }
  }
  if (!key || key.asymmetricKeyType !== 'rsa') return fail('The DKIM public key (p=) does not decode to an RSA key.');
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  // RFC 8301 §3.2: verifiers must not accept keys under 1024 bits; signers should use 2048.
  if (bits < 1024) return fail(`The DKIM key has ${bits} bits; receivers refuse keys under 1024 bits (RFC 8301).`);
  const testing = tags.get('t')?.toLowerCase().split(':').includes('y');
  return {
    status: 'PASS',
    reason: `A ${bits}-bit RSA DKIM key.${bits < 2048 ? ' 2048 bits is recommended.' : ''}${testing ? ' It is flagged t=y (testing), so some receivers treat signed mail as unsigned.' : ''}`,
  };
}

const recordName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;

/**
 * DKIM (docs/api.md, Domain checks): with a selector given to the
 * check, only that one; else the domain's saved selector only; in both cases
 * a missing or unusable record is FAIL. With neither, the common selectors are
 * looked up together and the first of the list that has a record decides;
 * none found is PENDING.
 */
export async function checkDkim(
  dns: DnsResolver,
  domain: string,
  opts: { selector?: string | null; savedSelector?: string | null },
): Promise<DkimFinding> {
  const chosen = opts.selector || opts.savedSelector;
  if (chosen) {
    const source = opts.selector ? 'the selector given with the check' : "the domain's saved dkimSelector";
    const name = recordName(chosen, domain);
    const answer = await dns.txt(name);
    const base = { selectorsTried: [chosen] };
    if (!answer.ok) {
      const why =
        answer.reason === 'timeout'
          ? `The lookup of ${name} timed out.`
          : answer.reason === 'error'
            ? `The lookup of ${name} failed.`
            : `No DKIM record at ${name} (${source}).`;
      return { ...base, status: 'FAIL', selector: null, records: [], reason: why };
    }
    const records = answer.records.filter(looksLikeDkim);
    if (!records.length) {
      return { ...base, status: 'FAIL', selector: null, records: answer.records, reason: `The TXT record at ${name} is not a DKIM key.` };
    }
    return { ...base, selector: chosen, records, ...decide(records) };
  }

  const answers = await Promise.all(COMMON_SELECTORS.map((s) => dns.txt(recordName(s, domain))));
  const selectorsTried = [...COMMON_SELECTORS];
  for (const [i, answer] of answers.entries()) {
    const records = answer.ok ? answer.records.filter(looksLikeDkim) : [];
    if (records.length) return { selectorsTried, selector: COMMON_SELECTORS[i]!, records, ...decide(records) };
  }
  const unanswered = COMMON_SELECTORS.filter(
    (_, i) => !answers[i]!.ok && ['timeout', 'error'].includes((answers[i] as { reason: string }).reason),
  );
  return {
    status: 'PENDING',
    selector: null,
    selectorsTried,
    records: [],
    reason:
      `No DKIM record at any of the common selectors (${COMMON_SELECTORS.join(', ')}). If your mail provider gave you a selector, save it as the domain's dkimSelector or pass it as ?selector=.` +
      (unanswered.length ? ` The lookups of ${unanswered.join(', ')} did not answer.` : ''),
  };
}

/** Two key records at one selector: a receiver may pick either, so both must do. */
function decide(records: string[]): { status: Status; reason: string } {
  if (records.length > 1) return fail(`There are ${records.length} DKIM records at this selector; receivers may use either. Keep one.`);
  return evaluateDkimRecord(records[0]!);
}
