/**
 * The transport kit every mail adapter shares (the sign-in check, the
 * mailer, the IMAP reader): where to connect and whether the address is
 * trusted, and the sorting of connection and sign-in failures into the
 * ports' reasons. No mail library here: the mailer alone must not carry
 * imapflow (imap-client.ts has the IMAP client).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { getSystemErrorName } from 'node:util';
import type { ServerLogin as PortLogin, SignInFailure, SignInResult } from '@outbound/core/ports/mail';

const NO_ENCRYPTION = 'server offers no encryption';

export interface ServerLogin extends PortLogin {
  /** Gives up after this long in total, resolution included. Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * Resolves host to an IP address (for DNS_SERVERS). The connection goes to that address
   * and host stays the TLS server name. Without it the system resolver is used.
   */
  resolver?: (host: string) => Promise<string>;
  /** Implicit TLS from the first byte. Default: port 465 for SMTP, 993 for IMAP. */
  secure?: boolean;
  /**
   * Test seam: decides whether the address connected to is private, i.e. whether the
   * password may go in clear and a self-signed certificate is accepted (SMTP and IMAP).
   * Default isPrivateOrLoopback. Tests pass `() => false` to treat a loopback server as
   * a public host without sending traffic off the machine; production never sets it.
   */
  isPrivate?: (ip: string) => boolean;
  /** Test seam: whether a resolved address is loopback (a name's certificate is verified unless it is). Default isLoopback. */
  isLoopback?: (ip: string) => boolean;
}

const PRIVATE_RANGES = new BlockList();
for (const [net, bits] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
] as const) {
  PRIVATE_RANGES.addSubnet(net, bits, 'ipv4');
}
PRIVATE_RANGES.addAddress('::1', 'ipv6');
PRIVATE_RANGES.addSubnet('fc00::', 7, 'ipv6'); // unique local, RFC 4193
PRIVATE_RANGES.addSubnet('fe80::', 10, 'ipv6'); // link-local, the IPv6 twin of 169.254/16

/**
 * True for loopback, private (RFC 1918, RFC 4193) and link-local addresses, and for the
 * name `localhost`: the only places credentials may travel unencrypted, and where a
 * self-signed certificate is accepted.
 */
export function isPrivateOrLoopback(ipOrHost: string): boolean {
  const value = ipOrHost
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (value === 'localhost' || value.endsWith('.localhost')) return true; // RFC 6761 section 6.3
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(value)?.[1];
  if (mapped) return PRIVATE_RANGES.check(mapped, 'ipv4');
  const family = isIP(value);
  if (family === 4) return PRIVATE_RANGES.check(value, 'ipv4');
  if (family === 6) return PRIVATE_RANGES.check(value, 'ipv6');
  return false;
}

/**
 * Where to connect, and the two trust decisions, which differ:
 * - `trusted`: credentials may go in clear: only to a loopback or private IP
 *   literal, never to a host reached by name;
 * - `verifyCert`: the server's certificate is checked. Always for a name (a
 *   name on a private network still has a certificate to match) unless it
 *   resolves to loopback; never for a private or loopback IP literal, which
 *   has no name to match a certificate against.
 */
export type Target = { ip: string; servername: string | undefined; trusted: boolean; verifyCert: boolean };

/** Loopback addresses (127/8, ::1, and IPv4 mapped into IPv6), and the name `localhost`. */
export function isLoopback(ipOrHost: string): boolean {
  const value = ipOrHost
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/^::ffff:/, '');
  return value === '::1' || value === 'localhost' || value.endsWith('.localhost') || (isIP(value) === 4 && value.startsWith('127.'));
}

/**
 * Resolves the host once, here, so that the address judged private is the address
 * connected to (a second lookup by the library could answer differently).
 */
/** Where to connect and whether the address is trusted (shared with sent-folder.ts). */
export async function locate(login: ServerLogin): Promise<Target | SignInResult> {
  const isPrivate = login.isPrivate ?? isPrivateOrLoopback;
  if (isIP(login.host))
    return { ip: login.host, servername: undefined, trusted: isPrivate(login.host), verifyCert: !isPrivate(login.host) };
  let ip: string;
  try {
    ip = login.resolver ? await login.resolver(login.host) : (await lookup(login.host)).address;
  } catch (err) {
    return { ok: false, reason: 'dns', detail: messageOf(err) };
  }
  if (!isIP(ip))
    return { ok: false, reason: 'dns', detail: `resolver returned ${JSON.stringify(ip)} for ${login.host}, not an IP address` };
  // A test that plays a public or private server on 127.0.0.1 (isPrivate) means it for loopback too, unless it says otherwise.
  const loopback = login.isLoopback ? login.isLoopback(ip) : isPrivate(ip) && isLoopback(ip);
  // Reached by name: STARTTLS is required and credentials never go in clear, even to a private address. Someone on
  // the same network can answer for the name or strip STARTTLS; an IP literal is the owner's explicit choice.
  return { ip, servername: login.host, trusted: false, verifyCert: !loopback };
}

interface LibraryError {
  message?: string;
  code?: string;
  errno?: number | string;
  cause?: unknown;
  // nodemailer
  responseCode?: number;
  response?: unknown;
  command?: string;
  // imapflow
  authenticationFailed?: boolean;
  serverResponseCode?: string;
  responseText?: string;
  tlsFailed?: boolean;
  _err?: unknown;
}

// SMTP replies meaning "no such command / not now", not "wrong password" (RFC 5321 section 4.2.3).
const SMTP_NOT_SUPPORTED = new Set([500, 501, 502, 503, 504]);

/** What a failed SMTP sign-in means, in the sign-in check's reasons. */
export function classifySmtpSignIn(err: unknown): SignInResult {
  const e = asLibraryError(err);
  const detail = messageOf(err);
  if (e.code === 'EAUTH' && !(e.responseCode !== undefined && SMTP_NOT_SUPPORTED.has(e.responseCode))) return fail('auth', detail);
  if (e.responseCode === 535) return fail('auth', detail);
  // With requireTLS, nodemailer sends STARTTLS even when unadvertised; a refusal means plaintext only.
  if (e.code === 'ETLS' && e.command === 'STARTTLS' && typeof e.response === 'string') return fail('other', `${NO_ENCRYPTION}: ${detail}`);
  return fail(classifyTransport(err) ?? 'other', detail);
}

/** Why an IMAP connection or sign-in failed, in the sign-in check's words (for the inbox reader). */
export function imapFailureReason(err: unknown): SignInFailure {
  const r = classifyImapSignIn(err);
  return r.ok ? 'other' : r.reason;
}

/** What a failed IMAP connection or sign-in means, in the sign-in check's reasons. */
export function classifyImapSignIn(err: unknown): SignInResult {
  const e = asLibraryError(err);
  const detail = e.responseText || (typeof e.response === 'string' ? e.response : '') || messageOf(err);
  if (e.authenticationFailed || e.serverResponseCode === 'AUTHENTICATIONFAILED') return fail('auth', detail);
  if (e.tlsFailed && /does not support STARTTLS/i.test(messageOf(err))) return fail('other', `${NO_ENCRYPTION}: ${detail}`);
  return fail(classifyTransport(err) ?? 'other', detail);
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EDNS', 'ENODATA', 'ESERVFAIL']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EHOSTDOWN', 'ENETDOWN']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ETIMEOUT', 'CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);

/** Network-level reasons, from the error's own code, its OS errno, or a wrapped cause. */
function classifyTransport(err: unknown): SignInFailure | undefined {
  const codes = codesOf(err);
  if (codes.some((c) => DNS_CODES.has(c))) return 'dns';
  if (codes.some((c) => CONNECT_CODES.has(c))) return 'connect';
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return 'timeout';
  return undefined;
}

/**
 * nodemailer overwrites `code` with its own category (ESOCKET) but leaves the OS errno,
 * and imapflow keeps the underlying error in `_err`; collect every code on the way down.
 */
function codesOf(err: unknown, depth = 0): string[] {
  if (depth > 3 || typeof err !== 'object' || err === null) return [];
  const e = asLibraryError(err);
  const codes: string[] = [];
  if (typeof e.code === 'string') codes.push(e.code);
  if (typeof e.errno === 'string') codes.push(e.errno);
  if (typeof e.errno === 'number' && e.errno < 0) {
    try {
      codes.push(getSystemErrorName(e.errno));
    } catch {
      // not a system error number
    }
  }
  return [...codes, ...codesOf(e.cause, depth + 1), ...codesOf(e._err, depth + 1)];
}

function asLibraryError(err: unknown): LibraryError {
  return typeof err === 'object' && err !== null ? (err as LibraryError) : {};
}

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

function fail(reason: SignInFailure, detail: string): SignInResult {
  return { ok: false, reason, detail };
}
