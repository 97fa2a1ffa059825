/**
 * Turns a raw message (as IMAP returns it) into the InboundMessage core's
 * rules read. mailparser does the MIME and header decoding; the parts of a
 * multipart/report (RFC 6522) are taken apart here, because mailparser folds
 * a message/delivery-status part into the body text.
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { InboundMessage } from '@outbound/core/ports/mail-reader';

const TEXT_MAX = 8 * 1024;
/** The machine-readable part of a report (RFC 3464 §2, RFC 6533 §6, RFC 5965 §3). */
const REPORT_PART = /^message\/(delivery-status|global-delivery-status|feedback-report)$/i;
const ORIGINAL_PART = /^(message\/rfc822|text\/rfc822-headers|message\/global|message\/global-headers)$/i;

const bareId = (id: string) => id.trim().replace(/^<|>$/g, '').trim();
/** Message-IDs as a header holds them: one or many, in angle brackets, folded over lines. */
const idsOf = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((v) => v.match(/<[^<>\s]+>/g) ?? (v.trim() ? [v] : [])).map(bareId).filter(Boolean);

function addresses(value: AddressObject | AddressObject[] | undefined): { address: string; name?: string }[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.flatMap((o) => o.value).flatMap((a) => (a.address ? [{ address: a.address.toLowerCase(), ...(a.name ? { name: a.name } : {}) }] : []));
}

/** First value of each header, by lower-case name, unfolded and as written (mailparser's own values may be objects). */
function headerMap(parsed: ParsedMail): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, line } of parsed.headerLines ?? []) {
    if (key in out) continue;
    const colon = line.indexOf(':');
    out[key] = (colon >= 0 ? line.slice(colon + 1) : '').replace(/\r?\n[ \t]+/g, ' ').trim();
  }
  return out;
}

/** Header block of a part, unfolded, by lower-case name (first occurrence). */
function partHeaders(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    if (!(key in out)) out[key] = line.slice(colon + 1).trim();
  }
  return out;
}

function decode(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '').trim().toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    return body.replace(/=\r?\n/g, '').replace(/=([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return body;
}

/** The top-level parts of a multipart body: content type and decoded text (RFC 2046 §5.1.1). */
function multipartParts(raw: string, boundary: string): { type: string; text: string }[] {
  const bodyStart = raw.search(/\r?\n\r?\n/);
  if (bodyStart < 0) return [];
  const body = raw.slice(bodyStart);
  const delimiter = `--${boundary}`;
  const chunks = body.split(new RegExp(`\\r?\\n${delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*(?=\\r?\\n|$)`));
  // The preamble (before the first delimiter) and the epilogue (after the closing one) are not parts.
  return chunks.slice(1).flatMap((chunk) => {
    const part = chunk.replace(/^\r?\n/, '');
    const split = part.search(/\r?\n\r?\n/);
    const headers = partHeaders(split < 0 ? part : part.slice(0, split));
    const content = split < 0 ? '' : part.slice(split).replace(/^\r?\n\r?\n/, '');
    const type = (headers['content-type'] ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
    return part.trim() ? [{ type, text: decode(content, headers['content-transfer-encoding']) }] : [];
  });
}

function originalOf(text: string): NonNullable<InboundMessage['report']>['original'] {
  const end = text.search(/\r?\n\r?\n/);
  const h = partHeaders(end < 0 ? text : text.slice(0, end));
  const addr = (v: string | undefined) => (v?.match(/[^\s<>,;"]+@[^\s<>,;"]+/g) ?? []).map((a) => a.toLowerCase());
  return {
    ...(h['message-id'] ? { messageId: idsOf(h['message-id'])[0] } : {}),
    ...(addr(h.from)[0] ? { from: addr(h.from)[0] } : {}),
    to: addr(h.to),
    ...(h.subject ? { subject: h.subject } : {}),
  };
}

function reportOf(parsed: ParsedMail, raw: string): InboundMessage['report'] {
  const ct = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (ct?.value?.toLowerCase() !== 'multipart/report') return undefined;
  const type = (ct.params?.['report-type'] ?? '').toLowerCase();
  const boundary = ct.params?.boundary;
  const parts = boundary ? multipartParts(raw, boundary) : [];
  const fields = parts.find((p) => REPORT_PART.test(p.type))?.text ?? '';
  const original = parts.find((p) => ORIGINAL_PART.test(p.type));
  return { type, fields, ...(original ? { original: originalOf(original.text) } : {}) };
}

/** Never throws: what cannot be read is left empty. */
export async function parseInbound(uid: number, receivedAt: number, source: Buffer | string): Promise<InboundMessage> {
  const raw = typeof source === 'string' ? source : source.toString('utf8');
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(source, { skipHtmlToText: false, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  } catch {
    return { uid, receivedAt, inReplyTo: [], references: [], to: [], subject: '', headers: {}, text: '' };
  }
  const from = addresses(parsed.from)[0];
  let report: InboundMessage['report'];
  try {
    report = reportOf(parsed, raw);
  } catch {
    report = undefined;
  }
  const text = (parsed.text ?? (typeof parsed.html === 'string' ? parsed.html.replace(/<[^>]*>/g, ' ') : '') ?? '').slice(0, TEXT_MAX);
  return {
    uid,
    receivedAt,
    ...(parsed.messageId ? { messageId: bareId(parsed.messageId) } : {}),
    inReplyTo: idsOf(parsed.inReplyTo),
    references: idsOf(parsed.references),
    ...(from ? { from: from.address, ...(from.name ? { fromName: from.name } : {}) } : {}),
    to: addresses(parsed.to).map((a) => a.address),
    subject: parsed.subject ?? '',
    headers: headerMap(parsed),
    text,
    ...(report ? { report } : {}),
  };
}
