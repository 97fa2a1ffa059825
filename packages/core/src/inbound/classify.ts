/**
 * What an inbound message is, from its headers and report parts alone
 * (docs/inbound.md). Pure: the lookups that tie it to a lead are the caller's.
 * Order (reports first, then automatic answers, then replies) matters: a
 * bounce carries Auto-Submitted and often In-Reply-To, and must still count
 * as a bounce; an out-of-office answer is threaded like a reply, and must not
 * stop the sequence.
 */
import type { InboundMessage } from '../ports/mail-reader.ts';
import { isPermanentFailure, parseDeliveryStatus, parseFeedbackReport, type DsnRecipient } from './reports.ts';

export type BounceReason = 'user-unknown' | 'host-unknown' | 'mailbox-disabled' | 'has-moved' | 'filtered' | 'mailbox-full' | 'rate-limited' | 'too-many-connections' | 'blocked' | 'reputation' | 'policy' | 'spam-detected' | 'virus-detected' | 'content-rejected' | 'auth-failure' | 'relaying-denied' | 'syntax-error' | 'message-too-big' | 'expired' | 'network-error' | 'system-error' | 'not-accepted' | 'unknown';
export interface BouncedRecipient extends DsnRecipient {
  reason: BounceReason;
  hard: boolean;
}

export type Classified =
  /** RFC 3464 report with at least one permanent failure; `recipients` come from the report, never from free text. */
  | { kind: 'BOUNCE'; recipients: BouncedRecipient[]; originalMessageId?: string }
  /** RFC 5965 feedback report (a complaint); recipients from Original-Rcpt-To, else the returned original's To. */
  | { kind: 'COMPLAINT'; recipients: string[]; originalMessageId?: string }
  /** RFC 3834 automatic answer (out of office, vacation, autoresponder). */
  | { kind: 'AUTO_REPLY'; threadIds: string[] }
  /** May be a reply: the caller looks its thread ids up, else its sender. */
  | { kind: 'REPLY'; threadIds: string[] }
  | { kind: 'IGNORE'; reason: string };

const first = (value: string | undefined) => (value ?? '').split(';')[0]!.trim().toLowerCase();

/** Subjects automatic answers are written with, in the languages most seen in B2B mail. */
const AUTO_SUBJECT =
  /^\s*(automatic reply|auto[- ]?reply|autoreply|auto:|out of (the )?office|abwesenheitsnotiz|automatische antwort|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica|automatisch antwoord)/i;

/**
 * RFC 3834 §5: Auto-Submitted other than "no" marks an automatic message;
 * X-Autoreply, X-Autorespond and `Precedence: auto_reply` are the older
 * markers of vacation programs; Exchange adds X-Auto-Response-Suppress to
 * its out-of-office answers.
 */
export function isAutoReply(m: Pick<InboundMessage, 'headers' | 'subject'>): boolean {
  const h = m.headers;
  const submitted = first(h['auto-submitted']);
  if (submitted && submitted !== 'no') return true;
  if (h['x-autoreply'] !== undefined || h['x-autorespond'] !== undefined || h['x-autoresponder'] !== undefined) return true;
  if (first(h['precedence']) === 'auto_reply') return true;
  const suppress = (h['x-auto-response-suppress'] ?? '').toLowerCase();
  if (/\b(all|oof|autoreply)\b/.test(suppress) && AUTO_SUBJECT.test(m.subject)) return true;
  return AUTO_SUBJECT.test(m.subject);
}

/** Mailing-list and bulk mail is never a person's answer (RFC 2369 List-Id, the Precedence convention). */
function isBulk(m: Pick<InboundMessage, 'headers'>): boolean {
  const precedence = first(m.headers['precedence']);
  return precedence === 'bulk' || precedence === 'list' || precedence === 'junk' || m.headers['list-id'] !== undefined;
}

/** Message-IDs the message answers: In-Reply-To first, then References from the newest. */
export const threadIdsOf = (m: Pick<InboundMessage, 'inReplyTo' | 'references'>): string[] => [
  ...new Set([...m.inReplyTo, ...[...m.references].reverse()].map((id) => id.toLowerCase())),
];

export function classify(m: InboundMessage, mailboxEmail: string): Classified {
  if (m.report?.type === 'delivery-status') {
    const recipients = parseDeliveryStatus(m.report.fields).filter(isPermanentFailure).map((r) => ({ ...r, reason: 'unknown' as const, hard: true }));
    // A delay (4.x.x) or a success notice changes nothing.
    if (!recipients.length) return { kind: 'IGNORE', reason: 'a delivery report without a permanent failure' };
    return { kind: 'BOUNCE', recipients, originalMessageId: m.report.original?.messageId?.toLowerCase() };
  }
  if (m.report?.type === 'feedback-report') {
    const report = parseFeedbackReport(m.report.fields);
    const recipients = report.originalRcptTo.length ? report.originalRcptTo : (m.report.original?.to ?? []);
    return { kind: 'COMPLAINT', recipients, originalMessageId: m.report.original?.messageId?.toLowerCase() };
  }
  if (m.report) return { kind: 'IGNORE', reason: `a ${m.report.type} report` };
  // The engine's own sent copy (providers that show sent mail in INBOX).
  if (m.from && m.from === mailboxEmail.toLowerCase()) return { kind: 'IGNORE', reason: 'sent from this mailbox' };
  const threadIds = threadIdsOf(m);
  if (isAutoReply(m)) return { kind: 'AUTO_REPLY', threadIds };
  if (isBulk(m)) return { kind: 'IGNORE', reason: 'bulk or list mail' };
  return { kind: 'REPLY', threadIds };
}

/** A short plain-text excerpt of what the person wrote: the quoted original and signatures' dashes are left out. */
export function snippetOf(text: string, max = 200): string {
  const lines: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    // Where the quoted original starts, in the forms Gmail, Outlook and Apple Mail write.
    if (/^\s*>/.test(line) || /^On .+ wrote:\s*$/i.test(line) || /^-{2,}\s*Original Message/i.test(line) || /^_{5,}/.test(line) || /^From: .+/i.test(line)) break;
    if (/^--\s*$/.test(line)) break;
    lines.push(line.trim());
  }
  const flat = lines.join(' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}
