/**
 * One message of a lead's conversation as stored: the text of an email the engine sent (a campaign step or
 * a person's answer) or of a reply received, at most MAX_TEXT_BYTES of it. A reply's status is not kept
 * here: it changes (a person, the AI), so the conversation reads it from the reply's row.
 */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { messageKey } from './keys.ts';

/** The most of a message's text kept: an item stays far under DynamoDB's 400 KB limit. */
export const MAX_TEXT_BYTES = 64 * 1024;

/** The text cut to MAX_TEXT_BYTES of UTF-8, never inside a character. */
export function keptText(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_TEXT_BYTES) return text;
  // A character cut in two decodes as U+FFFD: dropped.
  return bytes
    .subarray(0, MAX_TEXT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

export const OutMessage = z.looseObject({
  direction: z.literal('out'),
  /** The campaign step; null for a person's answer. */
  step: z.number().nullable(),
  messageId: z.string(),
  subject: z.string(),
  text: z.string(),
  at: z.string(),
  jobId: z.string(),
});
export type OutMessage = z.infer<typeof OutMessage>;

export const InMessage = z.looseObject({
  direction: z.literal('in'),
  replyId: z.string(),
  fromEmail: z.string(),
  subject: z.string(),
  text: z.string(),
  at: z.string(),
  /** The reply's own Message-ID, which an answer's In-Reply-To names. */
  headerId: z.string().optional(),
});
export type InMessage = z.infer<typeof InMessage>;

export const StoredMessage = z.discriminatedUnion('direction', [OutMessage, InMessage]);
export type StoredMessage = z.infer<typeof StoredMessage>;

export const messageFromItem = (item: Item): StoredMessage => StoredMessage.parse(item);

/** The item of an email sent: its key orders it by the send's time. */
export function sentMessageItem(
  leadId: string,
  atMs: number,
  m: { step: number | null; messageId: string; subject: string; text: string; jobId: string },
): Item {
  return {
    ...messageKey(leadId, atMs, m.jobId),
    direction: 'out',
    ...m,
    subject: m.subject.slice(0, 1000),
    text: keptText(m.text),
    at: new Date(atMs).toISOString(),
  };
}

/**
 * The item of a reply received, `at` its arrival (the IMAP server's time, as the reply's row shows it). It
 * is ordered by the engine's time when it was read (`readAt`), on the same clock as the sends, so a reply
 * always follows the email it answers, whatever the server's clock says.
 */
export function replyMessageItem(
  leadId: string,
  readAt: number,
  m: { replyId: string; fromEmail: string; subject: string; text: string; at: number; headerId?: string },
): Item {
  return {
    ...messageKey(leadId, readAt, m.replyId),
    direction: 'in',
    ...m,
    subject: m.subject.slice(0, 1000),
    text: keptText(m.text),
    at: new Date(m.at).toISOString(),
  };
}
