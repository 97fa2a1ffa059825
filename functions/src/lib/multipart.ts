import { ValidationError } from '@outbound/core/errors';

export type MultipartFile = { filename: string; contentType: string; data: Buffer };

export type Multipart = {
  fields: Record<string, string>;
  files: Record<string, MultipartFile>;
};

type MultipartEvent = { headers?: Record<string, string | undefined>; body?: string; isBase64Encoded?: boolean };

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

const notMultipart = () => new ValidationError('Send the CSV as multipart/form-data with the fields campaignId and file.');
const malformed = (why: string) => new ValidationError(`The multipart/form-data body is malformed: ${why}.`);

/**
 * Parses a multipart/form-data body (RFC 7578, framed as in RFC 2046 5.1.1)
 * from an API Gateway HTTP API (payload v2) event.
 *
 * Works on Buffers so file bytes pass through unchanged, and finds each
 * delimiter with Buffer#indexOf from where the last one ended: one pass over
 * the body, however large. A part with a `filename` parameter is a file (its
 * `data` is a view into the decoded body, not a copy); any other part is a
 * text field, decoded as UTF-8. When a name repeats, the first part wins.
 *
 * Throws ValidationError (422) when the content type is not
 * multipart/form-data, names no boundary, or the body does not follow it.
 */
export function parseMultipart(event: MultipartEvent): Multipart {
  const contentType = headerOf(event.headers, 'content-type');
  if (!contentType) throw notMultipart();
  const [mediaType = '', ...params] = splitParams(contentType);
  if (mediaType.trim().toLowerCase() !== 'multipart/form-data') throw notMultipart();
  const boundary = paramsOf(params).get('boundary');
  // RFC 2046: 1 to 70 characters.
  if (!boundary || boundary.length > 70) {
    throw new ValidationError(
      'The multipart/form-data content type has no valid boundary: send the CSV as multipart/form-data with the fields campaignId and file.',
    );
  }

  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
  // Every delimiter after the first is CRLF + "--" + boundary; the CRLF belongs to the delimiter, not the part.
  const delimiter = Buffer.concat([CRLF, dashBoundary]);

  // The first delimiter opens the body or follows a preamble that ends with CRLF.
  let at = startsWith(body, dashBoundary, 0) ? 0 : body.indexOf(delimiter);
  if (at < 0) throw malformed('the boundary named in the content type never appears');
  if (at > 0) at += CRLF.length;

  const result: Multipart = { fields: {}, files: {} };
  for (;;) {
    let pos = at + dashBoundary.length;
    // "--" after the boundary closes the body; what follows is an epilogue.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return result;
    // Transport padding (spaces and tabs) may precede the CRLF.
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
    if (!startsWith(body, CRLF, pos)) throw malformed('a boundary line has text after it');
    const start = pos + CRLF.length;
    const end = body.indexOf(delimiter, start);
    if (end < 0) throw malformed('it ends before the closing boundary');
    addPart(result, body.subarray(start, end));
    at = end + CRLF.length;
  }
}

function addPart(result: Multipart, part: Buffer): void {
  // No headers at all: the part starts with the blank line.
  const headerEnd = startsWith(part, CRLF, 0) ? 0 : part.indexOf(HEADER_END);
  if (headerEnd < 0) throw malformed('a part has no blank line after its headers');
  const headers = new Map<string, string>();
  for (const line of part.subarray(0, headerEnd).toString('utf8').split('\r\n')) {
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('a part has a header line without a colon');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const data = part.subarray(headerEnd === 0 ? CRLF.length : headerEnd + HEADER_END.length);

  const [disposition = '', ...params] = splitParams(headers.get('content-disposition') ?? '');
  const dispositionParams = paramsOf(params);
  const name = dispositionParams.get('name');
  if (disposition.trim().toLowerCase() !== 'form-data' || name === undefined) {
    throw malformed('every part needs a Content-Disposition: form-data header with a name');
  }
  const filename = dispositionParams.get('filename*') ?? dispositionParams.get('filename');
  if (filename !== undefined) {
    result.files[name] ??= {
      filename,
      contentType: headers.get('content-type') || 'application/octet-stream',
      data,
    };
  } else {
    result.fields[name] ??= data.toString('utf8');
  }
}

function startsWith(buf: Buffer, prefix: Buffer, at: number): boolean {
  return buf.length - at >= prefix.length && buf.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}

function headerOf(headers: MultipartEvent['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** Splits a header value on the semicolons outside quoted strings. */
function splitParams(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted && c === '\\' && i + 1 < value.length) {
      current += c + value[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ';' && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/**
 * `key=value` parameters, keys lower-cased, quoted values unquoted. An
 * RFC 8187 extended value (`filename*=UTF-8''a%20b.csv`) is decoded under its own key.
 */
function paramsOf(params: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    const key = param.slice(0, eq).trim().toLowerCase();
    let value = param.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      // Only \" and \\ are unescaped: browsers leave a backslash in a filename as it is.
      value = value.slice(1, -1).replace(/\\(["\\])/g, '$1');
    } else if (key.endsWith('*')) {
      const extended = /^([^']*)'[^']*'(.*)$/.exec(value);
      if (!extended) continue;
      try {
        value = decodeURIComponent(extended[2] ?? '');
      } catch {
        continue;
      }
    }
    if (!out.has(key)) out.set(key, value);
  }
  return out;
}
