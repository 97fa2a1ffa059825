/**
 * What an inbound message is, from its headers, its report parts and, for a
 * notice from a mail system, its prose (docs/inbound.md, "Notices from mail
 * systems"). Pure: the lookups that tie it to a lead are the caller's.
 * Order (complaints and notices first, then automatic answers, then
 * replies) matters: a bounce carries Auto-Submitted and often In-Reply-To,
 * and must still count as a bounce; an out-of-office answer is threaded like
 * a reply, and must not stop the sequence.
 */
import type { InboundMessage } from '../ports/mail-reader.ts';
import { isMailSystemNotice, readBounce } from './notice/read.ts';
import { sesNotificationOf } from './notice/ses.ts';
import { addressesIn } from './notice/text.ts';
import { isOutOfOfficeText } from './out-of-office.ts';
import { parseFeedbackReport } from './reports.ts';

/** Why a recipient's delivery failed (notice/reasons.ts has the phrases and the hard/soft rule; docs/inbound.md the table). */
export type BounceReason =
  | 'user-unknown'
  | 'host-unknown'
  | 'mailbox-disabled'
  | 'has-moved'
  | 'filtered'
  | 'mailbox-full'
  | 'rate-limited'
  | 'too-many-connections'
  | 'blocked'
  | 'reputation'
  | 'policy'
  | 'spam-detected'
  | 'virus-detected'
  | 'content-rejected'
  | 'auth-failure'
  | 'relaying-denied'
  | 'syntax-error'
  | 'message-too-big'
  | 'expired'
  | 'network-error'
  | 'system-error'
  | 'not-accepted'
  | 'unknown';
export interface BouncedRecipient {
  recipient: string; // bare, lower-case address, at most 320 chars
  action: string; // failed | delayed | ... lower-case ('failed' when read from prose)
  status: string; // a bare x.y.z code; from the report, else from the text, else inferred ('5.0.0'/'4.0.0')
  diagnostic?: string; // the server's answer, trimmed, at most ~300 chars
  reason: BounceReason;
  hard: boolean; // decided by the reason as well as the status class
}

export type Classified =
  /**
   * A notice from a mail system (an RFC 3464 report, or a notice in prose)
   * naming at least one failed recipient: every failed recipient, hard and
   * soft, each with its reason. Never empty.
   */
  | { kind: 'BOUNCE'; recipients: BouncedRecipient[]; originalMessageId?: string }
  /** RFC 5965 feedback report or Microsoft JMRP (a complaint); recipients from the report, else the returned original. */
  | { kind: 'COMPLAINT'; recipients: string[]; originalMessageId?: string }
  /** RFC 3834 automatic answer (out of office, vacation, autoresponder). */
  | { kind: 'AUTO_REPLY'; threadIds: string[] }
  /** May be a reply: the caller looks its thread ids up, else its sender. */
  | { kind: 'REPLY'; threadIds: string[] }
  | { kind: 'IGNORE'; reason: string };

const first = (value: string | undefined) => (value ?? '').split(';')[0]!.trim().toLowerCase();

/** Subjects automatic answers are written with, in the languages the reply rules read (English, German, French, Spanish, Italian, Dutch, Portuguese). */
const AUTO_SUBJECT =
  /^\s*(automatic reply|auto[- ]?reply|autoreply|auto:|out of (the )?office|abwesenheitsnotiz|abwesenheit:|automatische antwort|r[ée]ponse automatique|absence du bureau|respuesta autom[áa]tica|fuera de la oficina|risposta automatica|fuori ufficio|automatisch antwoord|afwezigheidsbericht|resposta autom[áa]tica|aus[êe]ncia tempor[áa]ria|fora do escrit[óo]rio)/i;

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

/** The returned original's Message-ID, lower-case and bare: from a report's part, an attached message, or an original quoted in the text. */
export function originalMessageIdOf(m: InboundMessage): string | undefined {
  return (m.report?.original?.messageId ?? m.original?.messageId)?.toLowerCase();
}

/**
 * A complaint: an RFC 5965 feedback report, or Microsoft's JMRP (a
 * multipart/mixed whose attached original carries X-HmXmrOriginalRecipient,
 * the Outlook.com address that pressed "junk").
 */
function complaintOf(m: InboundMessage): Extract<Classified, { kind: 'COMPLAINT' }> | undefined {
  const originalMessageId = originalMessageIdOf(m);
  const ids = originalMessageId ? { originalMessageId } : {};
  if (m.report?.type === 'feedback-report') {
    const report = parseFeedbackReport(m.report.fields);
    const recipients = report.originalRcptTo.length ? report.originalRcptTo : (m.report.original?.to ?? m.original?.to ?? []);
    return { kind: 'COMPLAINT', recipients: recipients.slice(0, 20), ...ids };
  }
  const ses = sesNotificationOf(m);
  if (ses?.kind === 'complaint')
    return {
      kind: 'COMPLAINT',
      recipients: ses.recipients,
      ...(originalMessageId ? ids : ses.originalMessageId ? { originalMessageId: ses.originalMessageId } : {}),
    };
  const jmrp = m.original?.headers?.['x-hmxmroriginalrecipient'];
  if (jmrp !== undefined && !m.report) return { kind: 'COMPLAINT', recipients: addressesIn(jmrp, 20), ...ids };
  return undefined;
}

export function classify(m: InboundMessage, mailboxEmail: string): Classified {
  const complaint = complaintOf(m);
  if (complaint) return complaint;
  // A notice from a mail system is never a reply or an auto-reply, whatever its Auto-Submitted
  // (Exim writes auto-replied) or its In-Reply-To (Verizon, Apache James, fml thread it under the original).
  if (isMailSystemNotice(m, mailboxEmail)) {
    if (m.report && m.report.type !== 'delivery-status' && m.report.type !== 'global-delivery-status' && m.report.type !== '')
      return { kind: 'IGNORE', reason: `a ${m.report.type} report` };
    const recipients = readBounce(m, mailboxEmail);
    if (!recipients.length) return { kind: 'IGNORE', reason: 'a notice from a mail system without a failed recipient it names' };
    const originalMessageId = originalMessageIdOf(m) ?? sesNotificationOf(m)?.originalMessageId;
    return { kind: 'BOUNCE', recipients, ...(originalMessageId ? { originalMessageId } : {}) };
  }
  // The engine's own sent copy (providers that show sent mail in INBOX).
  if (m.from && m.from === mailboxEmail.toLowerCase()) return { kind: 'IGNORE', reason: 'sent from this mailbox' };
  const threadIds = threadIdsOf(m);
  if (isAutoReply(m)) return { kind: 'AUTO_REPLY', threadIds };
  // Vacation programs that mark nothing (and older ones that write Precedence: junk): the words alone, when
  // they are only about the absence; a person's answer beside them keeps it a reply.
  if (isOutOfOfficeText(m.text)) return { kind: 'AUTO_REPLY', threadIds };
  if (isBulk(m)) return { kind: 'IGNORE', reason: 'bulk or list mail' };
  return { kind: 'REPLY', threadIds };
}

/** A short plain-text excerpt of what the person wrote: the quoted original and signatures' dashes are left out. */
export function snippetOf(text: string, max = 200): string {
  const lines: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    // Where the quoted original starts, in the forms Gmail, Outlook and Apple Mail write.
    if (
      /^\s*>/.test(line) ||
      /^On .+ wrote:\s*$/i.test(line) ||
      /^-{2,}\s*Original Message/i.test(line) ||
      /^_{5,}/.test(line) ||
      /^From: .+/i.test(line)
    )
      break;
    if (/^--\s*$/.test(line)) break;
    lines.push(line.trim());
  }
  const flat = lines.join(' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}
