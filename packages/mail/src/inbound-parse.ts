/**
 * Turns a raw message (as IMAP returns it) into the InboundMessage core's
 * rules read. mailparser does the header decoding, the addresses and the
 * HTML's text; the MIME tree is also walked here, because mailparser folds a
 * message/delivery-status part into the body text and hides where a returned
 * original starts.
 *
 * Anyone can mail a mailbox, so everything here is bounded before it is
 * looked at (docs/inbound.md, "Hostile messages"): the source, each header
 * value, the number of headers, parts and nesting levels, every id and
 * address. Every pattern that sees message text runs in linear time: no
 * pattern here can retry from every position of a long run (the quadratic
 * case is a greedy run followed by a character that never comes, searched
 * globally), so addresses and ids are found by splitting into tokens first.
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { inlineOriginalOf, originalOf } from '@outbound/core/inbound/notice/original';
import { ADDRESS_MAX, headerEnd, headerFields, headerMapOf, idsOf } from '@outbound/core/inbound/notice/text';
import type { InboundMessage } from '@outbound/core/ports/mail-reader';

/** The reader fetches at most 256 KB; anything handed in beyond twice that is cut unread. */
const SOURCE_MAX = 512 * 1024;
const IN_REPLY_TO_MAX = 2;
/** The newest References are the ones that name the engine's own emails; older ones add nothing but cost. */
const REFERENCES_MAX = 5;
const TO_MAX = 50;
const TEXT_MAX = 8 * 1024;
/** The text a notice's reader looks at: enough for a long Sendmail transcript and the start of the returned original. */
const BODY_TEXT_MAX = 64 * 1024;
const PARTS_MAX = 64;
const DEPTH_MAX = 6;
/** The decoded size read of any one part. */
const PART_MAX = 96 * 1024;

/** The machine-readable part of a report (RFC 3464 §2, RFC 6533 §6, RFC 5965 §3). */
const REPORT_PART = /^message\/(delivery-status|global-delivery-status|feedback-report)$/;
const ORIGINAL_PART = /^(message\/rfc822|message\/global|text\/rfc822-headers|message\/global-headers)$/;

function addresses(value: AddressObject | AddressObject[] | undefined): { address: string; name?: string }[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list
    .flatMap((o) => o.value)
    .flatMap((a) =>
      a.address && a.address.length <= ADDRESS_MAX
        ? [{ address: a.address.toLowerCase(), ...(a.name ? { name: a.name.slice(0, 200) } : {}) }]
        : [],
    )
    .slice(0, TO_MAX);
}

/** The source with its header block bounded, so mailparser (and libmime's patterns) never see an oversized header. */
function boundedSource(raw: string): string {
  const { end, bodyStart } = headerEnd(raw);
  // Line ends as CRLF, without a pattern that would rescan a run of bare CRs.
  const fields = headerFields(raw.slice(0, end)).map((f) => f.replaceAll('\r', '').replaceAll('\n', '\r\n'));
  return `${fields.join('\r\n')}\r\n\r\n${raw.slice(bodyStart)}`;
}

/** `multipart/report; report-type=delivery-status; boundary="x"` → type and parameters, lower-case names. */
function contentType(value: string | undefined): { type: string; params: Record<string, string> } {
  const [head = '', ...rest] = (value ?? 'text/plain').split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, '');
  }
  return { type: head.trim().toLowerCase() || 'text/plain', params };
}

/** A part's body from its transfer encoding and charset to text. Bytes are carried as latin1 so none are lost on the way. */
function decode(body: string, encoding: string | undefined, charset: string | undefined): string {
  const enc = (encoding ?? '').trim().toLowerCase();
  let bytes: Buffer;
  if (enc === 'base64') bytes = Buffer.from(body.replace(/[^A-Za-z0-9+/=]+/g, ''), 'base64');
  else if (enc === 'quoted-printable') {
    const soft = body.replace(/=\r?\n/g, '');
    bytes = Buffer.from(
      soft.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    );
  } else bytes = Buffer.from(body, 'latin1');
  let cs = (charset ?? 'utf-8').trim().toLowerCase();
  // ISO-2022-JP is 7-bit; 8-bit bytes under that label are EUC-JP, as some Japanese carriers write it.
  if (cs === 'iso-2022-jp' && bytes.some((b) => b > 0x7f)) cs = 'euc-jp';
  try {
    return new TextDecoder(cs === 'us-ascii' || cs === 'ascii' ? 'utf-8' : cs).decode(bytes.subarray(0, PART_MAX));
  } catch {
    return bytes.subarray(0, PART_MAX).toString('utf8');
  }
}

const ENTITIES: Record<string, string> = { nbsp: ' ', lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** Tags that end a line of text; the content of style, script and head is not text. */
const BREAK_TAG = /^\/?(br|p|div|tr|li|h[1-6]|blockquote|table|hr)\b/i;
const SKIPPED = ['style', 'script', 'head'];

/** HTML to plain text in one pass with indexOf: no pattern rescans a tag that never closes. */
function htmlText(html: string): string {
  let out = '';
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) {
      out += html.slice(at);
      break;
    }
    out += html.slice(at, open);
    const close = html.indexOf('>', open);
    if (close < 0) break;
    const tag = html.slice(open + 1, Math.min(close, open + 12)).toLowerCase();
    out += BREAK_TAG.test(tag) ? '\n' : ' ';
    at = close + 1;
    const skipped = SKIPPED.find((name) => tag === name || tag.startsWith(`${name} `));
    if (skipped) {
      const end = html.toLowerCase().indexOf(`</${skipped}`, at);
      at = end < 0 ? html.length : end;
    }
  }
  return out
    .replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,6});/gi, (whole, name: string) => {
      if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    })
    .replace(/[ \t]+/g, ' ');
}

interface Walk {
  texts: string[];
  html: string[];
  reports: { type: string; text: string }[];
  originals: string[];
  parts: number;
}

/**
 * The MIME tree, depth first (RFC 2046 §5.1.1): delimiters are found with
 * indexOf, each body is looked at once, and the number of parts, their size
 * and the depth are capped, so a message of a thousand nested multiparts
 * costs what its first few do.
 */
function walk(entity: string, w: Walk, depth: number): void {
  if (w.parts >= PARTS_MAX) return;
  w.parts++;
  const { end, bodyStart } = headerEnd(entity);
  const headers = headerMapOf(entity.slice(0, end));
  const body = entity.slice(bodyStart);
  const { type, params } = contentType(headers['content-type']);
  if (type.startsWith('multipart/')) {
    if (depth >= DEPTH_MAX || !params.boundary) return;
    for (const part of multipartParts(body, params.boundary)) walk(part, w, depth + 1);
    return;
  }
  if (ORIGINAL_PART.test(type)) {
    w.originals.push(decode(body.slice(0, PART_MAX * 2), headers['content-transfer-encoding'], params.charset));
    return;
  }
  const text = () => decode(body.slice(0, PART_MAX * 2), headers['content-transfer-encoding'], params.charset);
  if (REPORT_PART.test(type)) w.reports.push({ type, text: text() });
  else if (/^attachment/i.test(headers['content-disposition'] ?? '')) return;
  else if (type === 'text/plain' || type === 'text') w.texts.push(text());
  else if (type === 'text/html') w.html.push(htmlText(text()));
  // A body without a type is text/plain (RFC 2045 §5.2); a part of another type (an image, a PDF) is not read.
}

/** The parts between a multipart body's delimiter lines (the preamble and the epilogue are not parts). */
function multipartParts(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const starts: number[] = [];
  let closed = -1;
  for (let at = body.indexOf(delimiter); at >= 0 && starts.length <= PARTS_MAX; at = body.indexOf(delimiter, at + delimiter.length)) {
    // A delimiter counts only at the start of a line (RFC 2046 §5.1.1).
    if (at > 0 && body[at - 1] !== '\n') continue;
    const after = at + delimiter.length;
    if (body.startsWith('--', after)) {
      closed = at;
      starts.push(at);
      break;
    }
    starts.push(at);
  }
  const parts: string[] = [];
  for (let i = 0; i < starts.length; i++) {
    if (starts[i] === closed) break;
    const lineEnd = body.indexOf('\n', starts[i]!);
    if (lineEnd < 0) break;
    const next = starts[i + 1] ?? body.length;
    // The CRLF before the next delimiter belongs to the delimiter.
    const part = body.slice(lineEnd + 1, next).replace(/\r?\n$/, '');
    if (part.trim()) parts.push(part);
  }
  return parts;
}

/** Never throws: what cannot be read is left empty. */
export async function parseInbound(uid: number, receivedAt: number, source: Buffer | string): Promise<InboundMessage> {
  const empty: InboundMessage = { uid, receivedAt, inReplyTo: [], references: [], to: [], subject: '', headers: {}, text: '' };
  try {
    return await parse(uid, receivedAt, source);
  } catch {
    return empty;
  }
}

async function parse(uid: number, receivedAt: number, source: Buffer | string): Promise<InboundMessage> {
  const bytes = typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
  // latin1 keeps one character per byte, so an 8-bit body in any charset survives until its part is decoded.
  const raw = boundedSource(bytes.subarray(0, SOURCE_MAX).toString('latin1'));
  const { end } = headerEnd(raw);
  const headers = headerMapOf(raw.slice(0, end));
  // mailparser decodes the header block only (encoded words, address lists): its cost on a body (HTML to
  // text, thousands of parts, nesting) grows faster than the body, so the body is walked here, with caps.
  const parsed: ParsedMail = await simpleParser(Buffer.from(`${raw.slice(0, end)}\r\n\r\n`, 'latin1'), {
    skipHtmlToText: true,
    skipImageLinks: true,
    skipTextToHtml: true,
    skipTextLinks: true,
  });

  const w: Walk = { texts: [], html: [], reports: [], originals: [], parts: 0 };
  walk(raw, w, 0);
  // The plain-text parts, else the HTML's text (RFC 2046 §5.1.4: alternatives carry the same content).
  const bodyText = (w.texts.length ? w.texts : w.html)
    .join('\n')
    .slice(0, BODY_TEXT_MAX * 2)
    .replace(/\r\n?/g, '\n')
    .slice(0, BODY_TEXT_MAX);
  const report = reportOf(headers, w);
  // An original quoted in the text; or, when a broken delimiter folded the original into the report part, there.
  const inline = !w.originals.length
    ? (inlineOriginalOf(bodyText) ?? (report?.fields ? inlineOriginalOf(report.fields) : undefined))
    : undefined;
  // Headers that name a complainant (JMRP) count only in an attached original: anyone can type them into a text.
  const original =
    report?.original ??
    (w.originals[0] !== undefined ? originalOf(w.originals[0]) : inline ? { ...inline.original, headers: {} } : undefined);

  const from = addresses(parsed.from)[0];
  const messageId = idsOf(headers['message-id'], 1)[0];
  const text = bodyText.slice(0, TEXT_MAX);
  return {
    uid,
    receivedAt,
    ...(messageId ? { messageId } : {}),
    inReplyTo: idsOf(headers['in-reply-to'], IN_REPLY_TO_MAX),
    references: idsOf(headers['references'], REFERENCES_MAX, 'last'),
    ...(from ? { from: from.address, ...(from.name ? { fromName: from.name } : {}) } : {}),
    to: addresses(parsed.to).map((a) => a.address),
    subject: (parsed.subject ?? '').slice(0, 1000),
    headers,
    text,
    bodyText,
    ...(report ? { report } : {}),
    ...(original ? { original } : {}),
  };
}

/**
 * The report part, wherever it is: a multipart/report (RFC 6522, with or
 * without its report-type), or a report part inside another multipart (some
 * MTAs send multipart/mixed). Its type comes from report-type, else from the part.
 */
function reportOf(headers: Record<string, string>, w: Walk): InboundMessage['report'] {
  const ct = contentType(headers['content-type']);
  const isReport = ct.type === 'multipart/report';
  const part = w.reports[0];
  if (!isReport && !part) return undefined;
  const fromPart = part ? part.type.replace(/^message\/(global-)?/, '') : '';
  const type = (ct.params['report-type'] ?? '').toLowerCase() || fromPart;
  const original = w.originals[0] !== undefined ? originalOf(w.originals[0]) : undefined;
  return { type, fields: part?.text ?? '', ...(original ? { original } : {}) };
}
