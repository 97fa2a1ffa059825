import { createHash } from 'node:crypto';
import type { Key } from '../ports/store.ts';
import { timeKey } from '../sending/keys.ts';

/**
 * The text of each message of a lead's conversation, one item per message, in the lead's own partition
 * (beside its row, `LEAD#<id>`/`LEAD`), sorted by time: the conversation is one query, oldest first, with
 * no index. Apart from the reply rows, which list queries read, so those stay small.
 */
const MESSAGE = 'MSG#';
export const messageKey = (leadId: string, at: number, id: string): Key => ({ pk: `LEAD#${leadId}`, sk: `${MESSAGE}${timeKey(at)}#${id}` });
/** Access pattern: a lead's messages, by time (a range of sort keys within its partition). */
export const messagesOfLead = (leadId: string) => ({ pk: `LEAD#${leadId}`, skBeginsWith: MESSAGE });
/** The sort keys a page of the conversation may start after: every message key sorts between these. */
export const MESSAGE_FIRST = MESSAGE;
export const MESSAGE_LAST = `${MESSAGE}~`;
export const isMessageSk = (sk: string) => /^MSG#\d{15}#[\w.-]+$/.test(sk);

/** A person's answers are jobs of their own, listed per lead so erase and delete reach their words. */
export const leadAnswers = (leadId: string) => `LEAD#${leadId}#ANSWERS`;
export const answersOfLead = (leadId: string) => ({ index: 'gsi2' as const, pk: leadAnswers(leadId) });

/**
 * The first answer made with one Idempotency-Key for one lead: a repeat finds it and answers the same
 * messageId. The key is hashed so a client's string of any characters makes a bounded, safe key.
 */
export const answerKeyKey = (leadId: string, idempotencyKey: string): Key => ({
  pk: `LEAD#${leadId}`,
  sk: `ANSWERKEY#${createHash('sha256').update(idempotencyKey).digest('base64url')}`,
});
/** Access pattern: a lead's Idempotency-Key items (deleted with the lead). */
export const answerKeysOfLead = (leadId: string) => ({ pk: `LEAD#${leadId}`, skBeginsWith: 'ANSWERKEY#' });
