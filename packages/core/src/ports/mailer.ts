/**
 * Sending one email over SMTP (adapter: packages/mail/src/mailer.ts, nodemailer
 * pooled per mailbox). The adapter classifies the outcome; core decides what
 * each outcome means for the lead, the mailbox and the breaker.
 */
export interface MailboxTransport {
  /** Pool key: one pool per mailbox. */
  mailboxId: string;
  host: string;
  port: number;
  user: string;
  auth: { type: 'password'; pass: string } | { type: 'oauth2'; accessToken: string };
}

export interface OutgoingEmail {
  from: { name?: string | null; address: string };
  to: string;
  subject: string;
  text: string;
  /** Without angle brackets: `01H...@example.com`. */
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  /** The Date header, engine ms: the engine's clock at the send (set by the send path; the adapter's own clock otherwise). */
  date?: number;
  /** Extra headers written as given (List-Unsubscribe, List-Unsubscribe-Post). */
  headers: Record<string, string>;
}

/**
 * - `permanent`: a 5xx at RCPT or DATA — the address is bad (a bounce).
 * - `temporary`: a 4xx — try again later.
 * - `auth`: the server refused the sign-in — the mailbox needs attention.
 * - `connection`: nothing was sent (no connection, refused before DATA).
 * - `unknown`: the connection broke after the message may have been taken;
 *   never resent blindly (docs/sending.md, Exactly once).
 */
export type SendFailure = 'permanent' | 'temporary' | 'auth' | 'connection' | 'unknown';
export type SendResult = { ok: true; response: string } | { ok: false; kind: SendFailure; code?: number; detail: string };

export interface SendHooks {
  /**
   * Awaited once the server has accepted the DATA command, before any byte of
   * the message goes: until it resolves the server cannot have taken the
   * message (it takes it only at the final dot). When it throws, nothing of
   * the message is sent and the connection is dropped, so the server discards
   * it; the send then answers `connection`. The sender writes the start of
   * SMTP here, so a crash leaves the outcome unknown only for the message's
   * transfer and the write after it (docs/sending.md, Exactly once).
   */
  beforeMessage?: () => Promise<void>;
}

export interface Mailer {
  send(transport: MailboxTransport, email: OutgoingEmail, hooks?: SendHooks): Promise<SendResult>;
  /** Closes every pooled connection (shutdown). */
  close(): Promise<void>;
}
