/**
 * How the engine signs in to a mailbox's servers, whichever way it was
 * connected: a sealed password, or OAuth (XOAUTH2 with a fresh access token).
 * The send path, the Sent-folder lookup and the inbox reader all come here.
 */
import type { Deps } from '../deps.ts';
import { accessToken, MailboxAccessError } from '../oauth/tokens.ts';
import type { ServerLogin } from '../ports/mail.ts';
import type { MailboxTransport } from '../ports/mailer.ts';
import { openSecretCached } from '../secrets/index.ts';
import { DEFAULT_IMAP_PORT, DEFAULT_SMTP_PORT, signInUser, type Mailbox } from './entity.ts';

export { MailboxAccessError };

export const passwordContext = (mailboxId: string) => ({ purpose: 'mailbox-password', mailboxId });

type D = Pick<Deps, 'store' | 'keys' | 'oauth' | 'config' | 'wallClock' | 'log'>;

export { hasCredentials } from './entity.ts';

async function secretOf(deps: D, mailbox: Mailbox): Promise<{ pass: string } | { accessToken: string }> {
  if (mailbox.auth === 'oauth') return { accessToken: await accessToken(deps, mailbox) };
  if (mailbox.auth === 'password' && mailbox.sealedPassword) {
    return { pass: await openSecretCached(deps.keys, mailbox.sealedPassword, passwordContext(mailbox.id), deps.wallClock.now()) };
  }
  throw new MailboxAccessError(mailbox.auth === 'oauth-pending' ? 'The mailbox is not connected yet: finish its OAuth connection.' : 'The mailbox has no password to sign in with.');
}

/** SMTP for a send. Throws MailboxAccessError (a sentence for the mailbox's lastError) when it cannot sign in. */
export async function smtpTransport(deps: D, mailbox: Mailbox): Promise<MailboxTransport> {
  if (!mailbox.smtpHost) throw new MailboxAccessError('The mailbox has no SMTP host.');
  const secret = await secretOf(deps, mailbox);
  return {
    mailboxId: mailbox.id,
    host: mailbox.smtpHost,
    port: mailbox.smtpPort ?? DEFAULT_SMTP_PORT,
    // XOAUTH2 signs in as the mailbox's address (the account that granted the token).
    user: 'accessToken' in secret ? mailbox.email : signInUser(mailbox),
    auth: 'accessToken' in secret ? { type: 'oauth2', accessToken: secret.accessToken } : { type: 'password', pass: secret.pass },
  };
}

/** IMAP for reading (INBOX, the Sent folder). */
export async function imapLogin(deps: D, mailbox: Mailbox, timeoutMs?: number): Promise<ServerLogin> {
  if (!mailbox.imapHost) throw new MailboxAccessError('The mailbox has no IMAP host.');
  const secret = await secretOf(deps, mailbox);
  return {
    host: mailbox.imapHost,
    port: mailbox.imapPort ?? DEFAULT_IMAP_PORT,
    user: 'accessToken' in secret ? mailbox.email : signInUser(mailbox),
    pass: 'pass' in secret ? secret.pass : '',
    ...('accessToken' in secret ? { accessToken: secret.accessToken } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  };
}
