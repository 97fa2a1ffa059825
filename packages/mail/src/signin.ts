/**
 * Signs in to a mailbox's SMTP and IMAP servers once, to tell the caller whether the
 * credentials work. Adapter only: it classifies what went wrong and leaves every rule
 * (reserved domains, which failure to report) to core.
 */
import { Socket } from 'node:net';
import { createTransport } from 'nodemailer';
import type { SignInFailure, SignInResult } from '@outbound/core/ports/mail';
import { imapClient } from './imap-client.ts';
import { classifyImapSignIn, classifySmtpSignIn, locate, messageOf, type ServerLogin } from './transport.ts';

export type { SignInFailure, SignInResult, ServerLogin };

const DEFAULT_TIMEOUT_MS = 10_000;

/** Signs in to an SMTP server (AUTH after STARTTLS, or over implicit TLS) and says QUIT. */
export async function verifySmtp(login: ServerLogin): Promise<SignInResult> {
  const timeoutMs = login.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secure = login.secure ?? login.port === 465;
  return withDeadline(timeoutMs, async (signal) => {
    const target = await locate(login);
    if (!('ip' in target)) return target;
    if (signal.aborted) return timedOut(timeoutMs);

    // The socket is handed to nodemailer unconnected so that the deadline can destroy it:
    // verify() keeps its connection to itself.
    let socket: Socket | undefined;
    const transport = createTransport({
      host: target.ip,
      port: login.port,
      secure,
      servername: target.servername,
      // Opportunistic STARTTLS everywhere; mandatory where credentials must not go in clear.
      requireTLS: !secure && !target.trusted,
      auth: { user: login.user, pass: login.pass },
      // A server that does not advertise AUTH would otherwise "verify" without checking anything.
      forceAuth: true,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      tls: { rejectUnauthorized: target.verifyCert },
      logger: false,
      getSocket: (_options, callback) => {
        socket = new Socket();
        callback(null, { socket });
      },
    });
    const abort = () => socket?.destroy();
    signal.addEventListener('abort', abort, { once: true });
    try {
      await transport.verify();
      return { ok: true };
    } catch (err) {
      return signal.aborted ? timedOut(timeoutMs) : classifySmtpSignIn(err);
    } finally {
      signal.removeEventListener('abort', abort);
      transport.close();
    }
  });
}

/** Signs in to an IMAP server (LOGIN/AUTHENTICATE after STARTTLS, or over implicit TLS) and logs out. */
export async function verifyImap(login: ServerLogin): Promise<SignInResult> {
  const timeoutMs = login.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secure = login.secure ?? login.port === 993;
  return withDeadline(timeoutMs, async (signal) => {
    const target = await locate(login);
    if (!('ip' in target)) return target;
    if (signal.aborted) return timedOut(timeoutMs);

    const client = imapClient(login, target, secure, timeoutMs);
    const abort = () => client.close();
    signal.addEventListener('abort', abort, { once: true });
    try {
      await client.connect();
      await client.logout();
      return { ok: true };
    } catch (err) {
      return signal.aborted ? timedOut(timeoutMs) : classifyImapSignIn(err);
    } finally {
      signal.removeEventListener('abort', abort);
      if (!client.isClosed) client.close();
    }
  });
}

/** Runs one attempt, and answers 'timeout' (aborting the attempt) once `ms` have passed. */
async function withDeadline(ms: number, attempt: (signal: AbortSignal) => Promise<SignInResult>): Promise<SignInResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<SignInResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(timedOut(ms));
    }, ms);
  });
  const attempted = attempt(controller.signal).catch((err: unknown): SignInResult => ({
    ok: false,
    reason: 'other',
    detail: messageOf(err),
  }));
  try {
    return await Promise.race([attempted, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function timedOut(ms: number): SignInResult {
  return { ok: false, reason: 'timeout', detail: `no answer within ${ms} ms` };
}
