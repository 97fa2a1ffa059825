/**
 * A lead's conversation (docs/api.md, Conversations): every email the engine sent it and every reply, with
 * their text, oldest first; and a person's answer, sent from the lead's pinned mailbox in the same thread
 * through the one send path (answer-send.ts).
 */
import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId, messageIdAt } from '../ids.ts';
import { parse } from '../validate.ts';
import { keyedFromItem as leadFromItem, type Lead } from '../lead/entity.ts';
import { leadKey } from '../lead/keys.ts';
import { canSend, fromItem as mailboxFromItem } from '../mailbox/entity.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { fromItem as domainFromItem } from '../domain/entity.ts';
import { domainKey } from '../domain/keys.ts';
import * as suppression from '../suppression/index.ts';
import { inboundFromItem } from '../inbound/entity.ts';
import { inboundKey } from '../inbound/keys.ts';
import { refOf } from '../job-kinds.ts';
import { fromItem as jobFromItem } from '../sending/job.entity.ts';
import { move, newJob } from '../sending/jobs.ts';
import { queueCounterKey, stateCounter } from '../sending/keys.ts';
import { ANSWER_KIND } from './answer-send.ts';
import { MAX_TEXT_BYTES, messageFromItem } from './entity.ts';
import { answerKeyKey, isMessageSk, leadAnswers, MESSAGE_FIRST, MESSAGE_LAST, messagesOfLead } from './keys.ts';
import type { AnswerView, ConversationView, MessageView } from './conversation.view.ts';

async function leadOf(deps: Pick<Deps, 'store'>, id: string): Promise<Lead> {
  const item = await deps.store.get(leadKey(id));
  if (!item) throw new NotFoundError(`There is no lead ${id}.`);
  return leadFromItem(item);
}

/** GET /v1/leads/{id}/conversation's query. */
export const ConversationQuery = z.strictObject({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be from 1 to 200' })
    .max(200, { error: 'must be from 1 to 200' })
    .default(50),
  cursor: z.string().max(2000).optional(),
});

/** A page's text stops growing past this (Lambda answers at most 6 MB; 200 messages of 64 KB would be 13). The next page has the rest. */
const PAGE_BYTES = 4 * 1024 * 1024;

/** The cursor names the last message answered: the next page starts just after it. */
const cursorOf = (sk: string) => Buffer.from(JSON.stringify({ after: sk })).toString('base64url');
function positionOf(cursor: string): string {
  try {
    const { after } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof after === 'string' && isMessageSk(after)) return after;
  } catch {
    // told below
  }
  throw new ValidationError('cursor: is not one this engine gave: pass nextCursor from the previous page as it came.');
}

/**
 * GET /v1/leads/{id}/conversation: one query of the lead's partition (its messages sort by time), and one
 * batch read of the replies' rows for their statuses, which a person or the AI may have changed since.
 */
export async function conversation(deps: Pick<Deps, 'store'>, leadId: string, query: unknown): Promise<ConversationView> {
  const lead = await leadOf(deps, leadId);
  const q = parse(ConversationQuery, query);
  const after = q.cursor ? positionOf(q.cursor) : undefined;
  // BETWEEN is inclusive: the message the cursor names is read again and passed over; one more tells whether a page follows.
  const page = await deps.store.query({
    pk: messagesOfLead(leadId).pk,
    skBetween: [after ?? MESSAGE_FIRST, MESSAGE_LAST],
    limit: q.limit + 2,
  });
  const rows = page.items.filter((item) => item.sk !== after);
  const taken: typeof rows = [];
  let bytes = 0;
  for (const row of rows.slice(0, q.limit)) {
    bytes += Buffer.byteLength(String(row.text ?? ''), 'utf8') + 1024;
    if (taken.length && bytes > PAGE_BYTES) break;
    taken.push(row);
  }
  const stored = taken.map(messageFromItem);
  const replyIds = stored.flatMap((m) => (m.direction === 'in' ? [m.replyId] : []));
  const statuses = new Map(
    (replyIds.length ? await deps.store.batchGet(replyIds.map(inboundKey)) : []).map((item) => {
      const r = inboundFromItem(item);
      return [r.id, r.replyStatus ?? 'NEEDS_REVIEW'] as const;
    }),
  );
  const messages: MessageView[] = stored.map((m) =>
    m.direction === 'out'
      ? { direction: 'out', step: m.step, messageId: m.messageId, subject: m.subject, text: m.text, at: m.at }
      : {
          direction: 'in',
          replyId: m.replyId,
          fromEmail: m.fromEmail,
          subject: m.subject,
          text: m.text,
          at: m.at,
          status: statuses.get(m.replyId) ?? 'NEEDS_REVIEW',
        },
  );
  // What was read past the page (one more than the limit, or what the size cut off) says another page follows.
  const more = taken.length < rows.length;
  return {
    leadId,
    campaignId: lead.campaignId,
    mailboxId: lead.mailboxId ?? null,
    messages,
    nextCursor: more && taken.length ? cursorOf(String(taken[taken.length - 1]!.sk)) : null,
  };
}

/** POST /v1/leads/{id}/messages's body. */
export const AnswerInput = z.strictObject({
  text: z
    .string()
    .refine((t) => t.trim().length > 0, { error: 'must not be empty' })
    .refine((t) => Buffer.byteLength(t, 'utf8') <= MAX_TEXT_BYTES - 2048, {
      error: 'must be at most 62 KB (the footer takes the rest of the 64 KB kept)',
    }),
  subject: z
    .string()
    .trim()
    .min(1, { error: 'must not be empty when given' })
    .max(500, { error: 'must be at most 500 characters' })
    .optional(),
});

/** The longest Idempotency-Key taken. */
const MAX_KEY_LENGTH = 255;

/** The thread's subject answered: "Re: " once, however often it was answered before. */
const answering = (subject: string) => (/^re:/i.test(subject.trim()) ? subject.trim() : `Re: ${subject.trim()}`);

/**
 * POST /v1/leads/{id}/messages: a person's answer, from the lead's pinned mailbox, in its thread. Refused
 * here for what cannot change by itself (an empty text, a lead never emailed, a mailbox that cannot send:
 * 422; a suppressed address: 409); the send path checks the list again at the claim. The job, in the QUEUED
 * state, and the Idempotency-Key's item are written in one transaction, then the message is queued at once:
 * a repeat with the same key finds the item and answers the first messageId, sending nothing more.
 */
export async function answer(deps: Deps, leadId: string, body: unknown, idempotencyKey?: string): Promise<AnswerView> {
  const lead = await leadOf(deps, leadId);
  const input = parse(AnswerInput, body);
  if (idempotencyKey !== undefined && (!idempotencyKey.trim() || idempotencyKey.length > MAX_KEY_LENGTH)) {
    throw new ValidationError(`Idempotency-Key: must be 1 to ${MAX_KEY_LENGTH} characters.`);
  }
  const keyed = idempotencyKey === undefined ? undefined : answerKeyKey(leadId, idempotencyKey);
  const first = keyed && (await deps.store.get(keyed, { consistent: true }));
  if (first) return { messageId: String(first.messageId) };

  const sent = lead.thread?.messageIds ?? [];
  if (lead.erased || !lead.mailboxId || !sent.length)
    throw new ValidationError('The lead was never emailed: there is no thread to answer in.');
  if (await suppression.isSuppressed(deps, lead.email)) throw new ConflictError('The address is suppressed: nothing more is sent to it.');
  const row = await deps.store.get(mailboxKey(lead.mailboxId));
  const mailbox = row && mailboxFromItem(row);
  if (!mailbox || !canSend(mailbox)) {
    throw new ValidationError(
      `The lead's mailbox cannot send (${mailbox ? mailbox.status : 'deleted'}): the answer must go from the mailbox its thread is in.`,
    );
  }
  const domainRow = await deps.store.get(domainKey(mailbox.domainId));
  if (!domainRow) throw new ValidationError("The lead's mailbox has no domain: the answer cannot be sent.");
  const domain = domainFromItem(domainRow);

  // In-Reply-To: the thread's latest message either way (a reply's own Message-ID, or the last email sent).
  const latest = (await deps.store.query({ ...messagesOfLead(leadId), reverse: true, limit: 1 })).items.map(messageFromItem)[0];
  const repliedTo = latest?.direction === 'in' ? latest.headerId : undefined;
  const thread = repliedTo ? [...sent.filter((id) => id !== repliedTo), repliedTo] : sent;
  const now = deps.clock.now();
  const messageId = messageIdAt(domain.domainName);
  const id = `answer-${newId()}`;
  const item = newJob(
    {
      id,
      kind: ANSWER_KIND,
      group: leadAnswers(leadId),
      dueAt: now,
      mailboxId: mailbox.id,
      domainId: mailbox.domainId,
      fields: {
        leadId,
        campaignId: lead.campaignId,
        body: input.text,
        answerSubject: input.subject ?? answering(lead.thread?.firstSubject ?? ''),
        thread,
        answerMessageId: messageId,
      },
    },
    now,
  );
  // Written QUEUED and queued at once: it leaves within a minute, not at the dispatcher's next look.
  const queued = { ...item, state: 'QUEUED', queuedAt: deps.wallClock.now() };
  try {
    await deps.store.transact([
      { put: queued, if: { itemExists: false } },
      { update: queueCounterKey(id), change: { add: { [stateCounter('QUEUED')]: 1 } } },
      ...(keyed
        ? [{ put: { ...keyed, messageId, jobId: id, createdAt: new Date(deps.wallClock.now()).toISOString() }, if: { itemExists: false } }]
        : []),
    ]);
  } catch (err) {
    // The same key, at the same moment: the first one's answer.
    const won = keyed && err instanceof TransactionFailedError && (await deps.store.get(keyed, { consistent: true }));
    if (won) return { messageId: String(won.messageId) };
    throw err;
  }
  const job = jobFromItem(queued);
  try {
    await deps.queue.enqueue([{ jobId: id, ref: refOf(job), delayMs: 0 }]);
  } catch (err) {
    // Back to SCHEDULED, due now: the dispatcher queues it at its next tick instead of after a lost message's wait.
    deps.log.warn('could not queue an answer; the dispatcher will', { jobId: id, err });
    await move(deps, job, 'SCHEDULED', { due: { at: now, now, open: undefined } });
  }
  return { messageId };
}
