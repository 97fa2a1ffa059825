/**
 * Reading ids, addresses and header blocks out of untrusted text, in linear
 * time and with every result bounded (docs/inbound.md, "Notices from mail
 * systems"). Nothing here uses a pattern that can retry from every position
 * of a long run: text is split into tokens on characters that can never be
 * inside an address or an id, and each token is then checked whole, so a
 * 256 KB run without an @ costs one pass. (A global search for
 * `[^\s<>]+@[^\s<>]+` over such a run is quadratic: 40,000 characters took
 * 1.6 s.) The mail adapter uses the same functions for the message's own headers.
 */

/** DynamoDB keys hold ids (SENTMSG#<id>); RFC 5322 sets no limit, real ones are under 100 characters. */
export const ID_MAX = 255;
/** RFC 5321 §4.5.3.1: a 64-octet local part, @, a 255-octet domain; the usual bound is 320. */
export const ADDRESS_MAX = 320;
/** A header value (all its folded lines) longer than this is cut before any pattern sees it. */
export const HEADER_VALUE_MAX = 2048;
/** Header fields beyond this many in one block are dropped (real mail has well under 100). */
export const HEADER_FIELDS_MAX = 200;

const SEPARATORS = /[\s<>,;"'()[\]{}]+/;
const ID_SHAPE = /^[^@\s]+@[^@\s]+$/;

/** The tokens of a value, cut first, so the cost is bounded by the cut. */
const tokensOf = (value: string, max = HEADER_VALUE_MAX) => value.slice(0, max).split(SEPARATORS);
/** The tokens of a value's end: References lists the oldest first, and the newest are the ones that count. */
const lastTokensOf = (value: string) =>
  value
    .slice(-HEADER_VALUE_MAX)
    .split(SEPARATORS)
    .slice(value.length > HEADER_VALUE_MAX ? 1 : 0);

/** A Message-ID as the rules keep it: bare, at most 255 characters, shaped like left@right. */
export function cleanId(id: string): string | undefined {
  const bare = id.trim();
  return bare.length <= ID_MAX && ID_SHAPE.test(bare) ? bare : undefined;
}

/**
 * Message-IDs as a header holds them: one or many, usually in angle brackets,
 * folded over lines. Unbracketed words count only when each looks like an id,
 * so a header of bare words gives nothing. `keep` keeps the first few (for
 * References, `from: 'last'` keeps the newest).
 */
export function idsOf(value: string | undefined, keep: number, from: 'first' | 'last' = 'first'): string[] {
  if (!value) return [];
  const ids: string[] = [];
  for (const token of from === 'first' ? tokensOf(value) : lastTokensOf(value)) {
    const id = token ? cleanId(token) : undefined;
    if (id && !ids.includes(id)) ids.push(id);
  }
  return from === 'first' ? ids.slice(0, keep) : ids.slice(-keep);
}

/** One token as an address: bare, lower-case, with a dotted domain, at most 320 characters; else undefined. */
export function addressOfToken(token: string): string | undefined {
  if (!token || token.length > ADDRESS_MAX + 8) return undefined;
  const address = token
    .replace(/^(mailto|rfc822|smtp|sip):/i, '')
    .replace(/^[.:]+|[.:]+$/g, '')
    .toLowerCase();
  if (address.length > ADDRESS_MAX || !ID_SHAPE.test(address)) return undefined;
  // A URL or a query string is not an address, and a domain without a dot is a word with an @ in it.
  if (address.includes('/') || address.includes('?')) return undefined;
  const at = address.indexOf('@');
  if (at < 1 || address.indexOf('.', at) < 0 || address.endsWith('.')) return undefined;
  return address;
}

/** Bare, lower-case addresses in a header value or a line of text, each once, at most `max`. */
export function addressesIn(value: string | undefined, max = 50, cut = HEADER_VALUE_MAX): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const token of tokensOf(value, cut)) {
    const address = addressOfToken(token);
    if (address && !out.includes(address)) out.push(address);
    if (out.length >= max) break;
  }
  return out;
}

/** Where a header block ends: the first empty line (CRLF or LF), or the end of the text. */
export function headerEnd(raw: string): { end: number; bodyStart: number } {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { end: crlf, bodyStart: crlf + 4 };
  if (lf >= 0) return { end: lf, bodyStart: lf + 2 };
  return { end: raw.length, bodyStart: raw.length };
}

/**
 * The fields of a header block, each with its folded lines; at most
 * HEADER_FIELDS_MAX, each cut to HEADER_VALUE_MAX. References keeps its end
 * instead of its start: it lists the oldest id first, and the newest ones
 * name the email answered.
 */
export function headerFields(block: string): string[] {
  const fields: string[][] = [];
  let size = 0;
  let tail = false;
  for (const line of block.split('\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length) {
      // Past the cut, only a field kept by its end needs more lines (and only its last few are kept).
      if (size < HEADER_VALUE_MAX || tail) {
        const current = fields[fields.length - 1]!;
        current.push(line.slice(0, HEADER_VALUE_MAX));
        size += line.length + 1;
        if (tail && current.length > 64) current.splice(1, current.length - 64);
      }
      continue;
    }
    // An mbox "From " line, or anything else that is not a field, is left out.
    const colon = line.indexOf(':');
    if (colon <= 0 || line.slice(0, colon).includes(' ')) continue;
    if (fields.length >= HEADER_FIELDS_MAX) break;
    tail = /^references$/i.test(line.slice(0, colon).trim());
    fields.push([
      line.length > HEADER_VALUE_MAX && tail
        ? `${line.slice(0, colon + 1)} ${line.slice(-HEADER_VALUE_MAX)}`
        : line.slice(0, HEADER_VALUE_MAX),
    ]);
    size = line.length;
  }
  return fields.map((lines) => {
    const field = lines.join('\n');
    if (field.length <= HEADER_VALUE_MAX) return field;
    if (!/^references\s*:/i.test(field)) return field.slice(0, HEADER_VALUE_MAX);
    // The end, cut after a space, so no half id is kept.
    const end = field.slice(-HEADER_VALUE_MAX + 16);
    return `References:${end.slice(Math.max(0, end.search(/\s/)))}`;
  });
}

/** A header block by lower-case name (first occurrence), unfolded. */
export function headerMapOf(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of headerFields(block)) {
    const colon = field.indexOf(':');
    const key = field.slice(0, colon).trim().toLowerCase();
    if (key && !(key in out))
      out[key] = field
        .slice(colon + 1)
        .replace(/\r?\n[ \t]*/g, ' ')
        .trim();
  }
  return out;
}
