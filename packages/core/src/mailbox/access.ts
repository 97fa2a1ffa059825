/**
 * How the engine signs in to a mailbox's servers, whichever way it was
 * connected: a sealed password, or OAuth (XOAUTH2 with a fresh access token).
 * The send path, the Sent-folder lookup and the inbox reader all come here.
 */
import type { Deps } from '../deps.ts';
import { oauthServers, providerOf } from '../oauth/providers.ts';
import { accessToken, MailboxAccessError } from '../oauth/tokens.ts';
import type { ServerLogin } from '../ports/mail.ts';
import type { MailboxTransport } from '../ports/mailer.ts';
import { openSecretCached } from '../secrets/index.ts';
import { DEFAULT_IMAP_PORT, DEFAULT_SMTP_PORT, signInUser, type Mailbox } from './entity.ts';

export { MailboxAccessError };

export const passwordContext = (mailboxId: string) => ({ purpose: 'mailbox-password', mailboxId });

type D = Pick<Deps, 'store' | 'keys' | 'oauth' | 'config' | 'wallClock' | 'clock' | 'log'>;

export { hasCredentials } from './entity.ts';

async function secretOf(deps: D, mailbox: Mailbox): Promise<{ pass: string } | { accessToken: string }> {
  if (mailbox.auth === 'oauth') return { accessToken: await accessToken(deps, mailbox) };
  if (mailbox.auth === 'password' && mailbox.sealedPassword) {
    return { pass: await openSecretCached(deps.keys, mailbox.sealedPassword, passwordContext(mailbox.id), deps.wallClock.now()) };
  }
  throw new MailboxAccessError(
    mailbox.auth === 'oauth-pending'
      ? 'The mailbox is not connected yet: finish its OAuth connection.'
      : 'The mailbox has no password to sign in with.',
  );
}

/**
 * Where the mailbox's servers are. An OAuth mailbox's are its provider's, from the installation,
 * never the row's: its bearer token opens all of the account's mail and must go nowhere else.
 */
function serversOf(deps: D, mailbox: Mailbox): { smtp?: { host: string; port: number }; imap?: { host: string; port: number } } {
  const provider = mailbox.auth === 'oauth' ? providerOf(mailbox.provider) : undefined;
  if (provider) return oauthServers(deps.config, provider);
  return {
    ...(mailbox.smtpHost ? { smtp: { host: mailbox.smtpHost, port: mailbox.smtpPort ?? DEFAULT_SMTP_PORT } } : {}),
    ...(mailbox.imapHost ? { imap: { host: mailbox.imapHost, port: mailbox.imapPort ?? DEFAULT_IMAP_PORT } } : {}),
  };
}

/** SMTP for a send. Throws MailboxAccessError (a sentence for the mailbox's lastError) when it cannot sign in. */
export async function smtpTransport(deps: D, mailbox: Mailbox): Promise<MailboxTransport> {
  const { smtp } = serversOf(deps, mailbox);
  if (!smtp) throw new MailboxAccessError('The mailbox has no SMTP host.');
  const secret = await secretOf(deps, mailbox);
  return {
    mailboxId: mailbox.id,
    host: smtp.host,
    port: smtp.port,
    // XOAUTH2 signs in as the mailbox's address (the account that granted the token).
    user: 'accessToken' in secret ? mailbox.email : signInUser(mailbox),
    auth: 'accessToken' in secret ? { type: 'oauth2', accessToken: secret.accessToken } : { type: 'password', pass: secret.pass },
  };
}

/** IMAP for reading (INBOX, the Sent folder). */
export async function imapLogin(deps: D, mailbox: Mailbox, timeoutMs?: number): Promise<ServerLogin> {
  const { imap } = serversOf(deps, mailbox);
  if (!imap) throw new MailboxAccessError('The mailbox has no IMAP host.');
  const secret = await secretOf(deps, mailbox);
  return {
    host: imap.host,
    port: imap.port,
    user: 'accessToken' in secret ? mailbox.email : signInUser(mailbox),
    pass: 'pass' in secret ? secret.pass : '',
    ...('accessToken' in secret ? { accessToken: secret.accessToken } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  };
}
