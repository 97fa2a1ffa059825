import type { ServerLogin } from './mail.ts';

/**
 * Reading a mailbox over IMAP (adapter: packages/mail). For now one
 * question: did the provider file a message we may have sent into the Sent
 * folder? (decisions.md, Exactly once: GOOGLE and MICROSOFT file sent mail themselves.)
 */
export interface MailReader {
  /** True when the Sent folder holds a message with this Message-ID; throws when it cannot tell. */
  sentContains(login: ServerLogin, messageId: string): Promise<boolean>;
}
