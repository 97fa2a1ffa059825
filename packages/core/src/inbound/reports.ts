/**
 * The machine-readable parts of mail reports: RFC 3464 delivery status
 * notifications (bounces) and RFC 5965 feedback reports (complaints). Both
 * are blocks of header-like fields (RFC 3464 §2.1: a per-message block, then
 * one block per recipient, separated by blank lines). When a report names
 * its recipients, these parts decide who bounced or complained; the prose is
 * read only when there is no such part, or for a recipient's reason
 * (notice/read.ts).
 */

export interface DsnRecipient {
  /** Final-Recipient, else Original-Recipient: a bare, lower-case address. */
  recipient: string;
  /** failed, delayed, delivered, relayed or expanded (RFC 3464 §2.3.3), lower-case. */
  action: string;
  /** The bare status code `class.subject.detail` (RFC 3463), without comments. */
  status: string;
  diagnostic?: string;
}

export interface FeedbackReport {
  feedbackType?: string;
  originalRcptTo: string[];
  originalMailFrom?: string;
  userAgent?: string;
  sourceIp?: string;
}

type Fields = Map<string, string[]>;

/** A report part longer than this is read for its start only (a report names a few recipients in a few hundred bytes). */
const FIELDS_MAX = 64 * 1024;
const RECIPIENT_FIELDS = new Set(['final-recipient', 'original-recipient']);

/**
 * Splits the text into blocks at blank lines and each block into unfolded
 * fields (RFC 5322 §2.2.3 folding). A recipient field that comes after the
 * block already has its recipient's Action or Status opens a new block: AOL
 * writes two recipients in one block with no blank line between them.
 */
function blocks(text: string): Fields[] {
  const out: Fields[] = [];
  let current: Fields = new Map();
  let last: { name: string; index: number } | undefined;
  for (const raw of text.slice(0, FIELDS_MAX).replace(/\r\n?/g, '\n').split('\n')) {
    if (!raw.trim()) {
      if (current.size) out.push(current);
      current = new Map();
      last = undefined;
      continue;
    }
    if (/^[ \t]/.test(raw) && last) {
      const values = current.get(last.name)!;
      values[last.index] = `${values[last.index]} ${raw.trim()}`;
      continue;
    }
    const colon = raw.indexOf(':');
    if (colon <= 0) continue;
    const name = raw.slice(0, colon).trim().toLowerCase();
    if (RECIPIENT_FIELDS.has(name) && (current.has(name) || current.has('action') || current.has('status'))) {
      out.push(current);
      current = new Map();
    }
    const values = current.get(name) ?? [];
    values.push(raw.slice(colon + 1).trim());
    current.set(name, values);
    last = { name, index: values.length - 1 };
  }
  if (current.size) out.push(current);
  return out;
}

/** `rfc822; <Ann@Client.com>` → `ann@client.com` (RFC 3464 §2.3.2: address-type ";" generic-address). */
export function addressOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const semi = value.indexOf(';');
  const typed = semi >= 0 ? value.slice(0, semi).trim().toLowerCase() : 'rfc822';
  if (typed !== 'rfc822' && typed !== 'utf-8') return undefined;
  const address = (semi >= 0 ? value.slice(semi + 1) : value).trim().replace(/^<|>$/g, '').trim().toLowerCase();
  return address.length <= 320 && /^[^\s@<>]+@[^\s@<>]+$/.test(address) ? address : undefined;
}

/** The recipients of a `message/delivery-status` part; [] for anything that is not one. */
export function parseDeliveryStatus(fields: string): DsnRecipient[] {
  const out: DsnRecipient[] = [];
  for (const block of blocks(fields)) {
    const recipient = addressOf(block.get('final-recipient')?.[0]) ?? addressOf(block.get('original-recipient')?.[0]);
    const action = block.get('action')?.[0]?.split(/[\s(]/)[0]?.toLowerCase();
    // RFC 3464 §2.3.4: status-code = DIGIT "." 1*3DIGIT "." 1*3DIGIT, possibly followed by a comment.
    const status = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/
      .exec(block.get('status')?.[0] ?? '')
      ?.slice(1)
      .join('.');
    if (!recipient || !action || !status) continue;
    const diagnostic = block.get('diagnostic-code')?.[0];
    out.push({ recipient, action, status, ...(diagnostic ? { diagnostic } : {}) });
  }
  return out;
}

/**
 * Every recipient block of a delivery-status part, read leniently for the
 * notice reader: a block without Action or Status still names its recipient
 * (McAfee writes no Status), and the status may be missing or only in the
 * Diagnostic-Code.
 */
export function deliveryStatusBlocks(fields: string): { recipient: string; action?: string; status?: string; diagnostic?: string }[] {
  const out: { recipient: string; action?: string; status?: string; diagnostic?: string }[] = [];
  for (const block of blocks(fields)) {
    const recipient =
      addressOf(block.get('final-recipient')?.[0]) ??
      addressOf(block.get('original-recipient')?.[0]) ??
      addressOf(block.get('x-actual-recipient')?.[0]);
    if (!recipient || out.some((r) => r.recipient === recipient)) continue;
    const action = block.get('action')?.[0]?.split(/[\s(]/)[0]?.toLowerCase() || undefined;
    const status = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/
      .exec(block.get('status')?.[0] ?? '')
      ?.slice(1)
      .join('.');
    const diagnostic = block.get('diagnostic-code')?.[0]?.slice(0, 2000);
    out.push({ recipient, ...(action ? { action } : {}), ...(status ? { status } : {}), ...(diagnostic ? { diagnostic } : {}) });
  }
  return out;
}

/** RFC 3464 §3.2.4: the message failed for good for this recipient. */
export const isPermanentFailure = (r: DsnRecipient) => r.action === 'failed' && r.status.startsWith('5.');

/** The fields of a `message/feedback-report` part (RFC 5965 §3.5). */
export function parseFeedbackReport(fields: string): FeedbackReport {
  const merged: Fields = new Map();
  for (const block of blocks(fields)) for (const [k, v] of block) merged.set(k, [...(merged.get(k) ?? []), ...v]);
  const first = (name: string) => merged.get(name)?.[0];
  return {
    feedbackType: first('feedback-type')?.toLowerCase(),
    originalRcptTo: [...new Set((merged.get('original-rcpt-to') ?? []).map((v) => addressOf(v)).filter((a): a is string => Boolean(a)))],
    originalMailFrom: addressOf(first('original-mail-from')),
    userAgent: first('user-agent'),
    sourceIp: first('source-ip'),
  };
}
