import type { ServerLogin } from './mail.ts';

/** Where a message was found in a seed inbox: the inbox, the spam folder, or neither. */
export type Placement = 'INBOX' | 'SPAM' | 'MISSING';

/**
 * One message of a mailbox's INBOX, parsed by the adapter into what the
 * inbound rules look at (packages/core/src/inbound). Message-IDs are written
 * without angle brackets; addresses are bare and lower-case.
 */
export interface InboundMessage {
  uid: number;
  /** The IMAP server's arrival time (INTERNALDATE), epoch milliseconds. */
  receivedAt: number;
  messageId?: string;
  inReplyTo: string[];
  references: string[];
  from?: string;
  fromName?: string;
  to: string[];
  subject: string;
  /**
   * Header values by lower-case name, the first occurrence of each, unfolded
   * (auto-submitted, x-autoreply, x-autorespond, precedence, x-auto-response-suppress, ...).
   */
  headers: Record<string, string>;
  /** The plain text of the body (text/plain, else the HTML's text), at most 8 KB. */
  text: string;
  /**
   * Every text part of the body in order, outside a returned original
   * (text/plain, else the HTML's text), decoded, LF line ends, at most 64 KB:
   * where a notice from a mail system says in prose what failed. Absent when
   * the message was built without it: readers fall back to `text`.
   */
  bodyText?: string;
  /**
   * The returned or attached original: a message/rfc822, message/global or
   * text/rfc822-headers part at any depth, else a header block the text quotes
   * (qmail's "--- Below this line is a copy of the message.", Exim's "------
   * This is a copy of the message, including all the headers. ------").
   * The same object as `report.original` when the report has one.
   */
  original?: ReturnedOriginal;
  /**
   * A multipart/report (RFC 6522), or a message of another multipart type
   * that carries a report part: its report-type and its machine-readable part.
   */
  report?: {
    /**
     * The report-type parameter, lower-case: 'delivery-status' (RFC 3464), 'feedback-report' (RFC 5965), ...;
     * without one, taken from the report part ('delivery-status' for a message/global-delivery-status part).
     */
    type: string;
    /** The text of the message/delivery-status, message/global-delivery-status or message/feedback-report part ('' when absent). */
    fields: string;
    /** The returned original message's headers (message/rfc822 or text/rfc822-headers part), when there is one. */
    original?: ReturnedOriginal;
  };
}

/**
 * A returned original, as far as the rules need it. Ids are bare (no angle
 * brackets), at most 255 characters; addresses bare and lower-case.
 */
export interface ReturnedOriginal {
  messageId?: string;
  from?: string;
  to: string[];
  subject?: string;
  /** A few headers by lower-case name that name a recipient (x-hmxmroriginalrecipient of Microsoft JMRP, x-original-to, delivered-to). */
  headers?: Record<string, string>;
}

/** Where a read of INBOX starts. */
export interface InboxCursor {
  /** The UIDVALIDITY the last read saw; a different one on the server means its UIDs start over. */
  uidValidity?: number;
  /** The highest UID already read under that UIDVALIDITY. */
  lastUid?: number;
  /**
   * Without a usable cursor (first read, or UIDVALIDITY changed), messages
   * that arrived (INTERNALDATE) before this epoch-ms time are never returned.
   */
  since: number;
  /** At most this many messages per read, oldest first. */
  max: number;
}

export interface InboxBatch {
  uidValidity: number;
  /** Messages after the cursor, oldest first, at most `max`. */
  messages: InboundMessage[];
  /** The cursor's next lastUid: the highest UID looked at (including messages skipped as too old). */
  lastUid: number;
  /** More messages wait after these. */
  more: boolean;
}

/**
 * Reading a mailbox over IMAP (adapter: packages/mail). Three uses: the
 * mailbox's INBOX (replies, bounce reports, complaints, auto-replies), the Sent
 * folder after an unknown send outcome (docs/sending.md, Exactly once: GOOGLE
 * and MICROSOFT file sent mail themselves), and the seed inboxes of a
 * placement sample. Every method throws when it cannot tell (sign-in refused,
 * server unreachable): "cannot tell" is never reported as "not there".
 */
export interface MailReader {
  /** New messages of INBOX after the cursor (read-only: nothing is marked seen). */
  readInbox(login: ServerLogin, cursor: InboxCursor): Promise<InboxBatch>;
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

/** A read that could not be made, with why (the sign-in check's reasons): `auth` is the owner's to fix, the rest may pass. */
export class InboxReadError extends Error {
  constructor(
    readonly reason: 'auth' | 'dns' | 'connect' | 'timeout' | 'other',
    message: string,
  ) {
    super(message);
    this.name = 'InboxReadError';
  }
}
