/**
 * The IMAP client under the engine's transport rules, apart from
 * transport.ts so that what only sends mail (the mailer) does not carry
 * imapflow.
 */
import { ImapFlow } from 'imapflow';
import type { ServerLogin, Target } from './transport.ts';

/**
 * An IMAP client under the engine's transport rules: STARTTLS whenever
 * offered, and required (with a verified certificate) unless the address is
 * loopback or private. Shared by the sign-in check and the Sent-folder lookup.
 */
export function imapClient(login: ServerLogin, target: Target, secure: boolean, timeoutMs: number): ImapFlow {
  const client = new ImapFlow({
    host: target.ip,
    port: login.port,
    secure,
    servername: target.servername,
    // undefined = STARTTLS when offered; true = refuse to continue without it.
    doSTARTTLS: !secure && !target.trusted ? true : undefined,
    // XOAUTH2 when the mailbox is connected with OAuth (imapflow picks the mechanism from accessToken).
    auth: login.accessToken ? { user: login.user, accessToken: login.accessToken } : { user: login.user, pass: login.pass },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    tls: { rejectUnauthorized: target.verifyCert },
  });
  // ImapFlow also reports failures as 'error' events; the rejected promise carries them.
  client.on('error', () => {});
  return client;
}
