import type { ServerLogin } from './mail.ts';

/** Where a message was found in a seed inbox: the inbox, the spam folder, or neither. */
export type Placement = 'INBOX' | 'SPAM' | 'MISSING';

/**
 * Reading a mailbox over IMAP (adapter: packages/mail). Two uses: the Sent
 * folder after an unknown send outcome (decisions.md, Exactly once: GOOGLE
 * and MICROSOFT file sent mail themselves), and the seed inboxes of a
 * placement sample. Every method throws when it cannot tell (sign-in refused,
 * server unreachable): "cannot tell" is never reported as "not there".
 */
export interface MailReader {
  /** True when the Sent folder holds a message with this Message-ID. */
  sentContains(login: ServerLogin, messageId: string): Promise<boolean>;
  /**
   * The folder the provider files spam in: `named` when the account has a
   * folder of that name, else the one marked \Junk (RFC 6154), else one named
   * like Spam, Junk, Junk E-mail or Bulk. Undefined when there is none.
   */
  spamFolder(login: ServerLogin, named?: string): Promise<string | undefined>;
  /** Looks for a Message-ID in INBOX, then in the given spam folder. */
  placementOf(login: ServerLogin, messageId: string, spamFolder: string): Promise<Placement>;
}
