/**
 * Checks an AWS Signature Version 4 on a request to a local stand-in, the
 * way AWS checks it: the canonical request (method, path, query, the signed
 * headers, the body's SHA-256), the string to sign for its scope, and the
 * HMAC chain from the secret key. The secret never travels, so a client that
 * signs correctly holds it; the stand-in's secret is made at each start and
 * handed to the engine's own client only.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
/** AWS refuses a request signed more than 15 minutes from its clock. */
const MAX_SKEW_MS = 15 * 60_000;

/** RFC 3986 encoding as SigV4 wants it for each path segment and query part. */
const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function verifySigV4(
  req: IncomingMessage,
  body: Buffer,
  creds: { accessKeyId: string; secretAccessKey: string },
  now = Date.now(),
): boolean {
  const auth =
    /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ''),
    );
  if (!auth) return false;
  const [, keyId, day, region, service, signedHeaders, signature] = auth as unknown as string[];
  if (keyId !== creds.accessKeyId) return false;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!at || amzDate.slice(0, 8) !== day) return false;
  const signedAt = Date.UTC(+at[1]!, +at[2]! - 1, +at[3]!, +at[4]!, +at[5]!, +at[6]!);
  if (Math.abs(now - signedAt) > MAX_SKEW_MS) return false;
  const names = signedHeaders!.split(';');
  if (!names.includes('host')) return false;
  const url = new URL(req.url ?? '/', 'http://local');
  const path =
    url.pathname
      .split('/')
      .map((seg) => uriEncode(decodeURIComponent(seg)))
      .join('/') || '/';
  const query = [...url.searchParams]
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .sort()
    .join('&');
  const headerLines = names.map((name) => {
    const value = req.headers[name];
    return `${name}:${(Array.isArray(value) ? value.join(',') : String(value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
  });
  const canonical = [req.method ?? 'GET', path, query, headerLines.join(''), signedHeaders, sha256(body)].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day!), region!), service!), 'aws4_request');
  const expected = Buffer.from(hmac(key, toSign).toString('hex'));
  const given = Buffer.from(signature!);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
