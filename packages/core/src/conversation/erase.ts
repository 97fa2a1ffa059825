/**
 * What an erase or a delete must reach of a lead's conversation (docs/security.md, Erase): the text of
 * each message, and a person's answers waiting or sent (their jobs hold the words). Each step is safe to
 * run again.
 */
import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import type { Item } from '../ports/store.ts';
import { fromItem as jobFromItem } from '../sending/job.entity.ts';
import { move } from '../sending/jobs.ts';
import { answerKeysOfLead, answersOfLead, messagesOfLead } from './keys.ts';

/** Where an erased message's sender stood: the lead's placeholder address, as its reply row shows. */
const erasedFrom = (leadId: string) => `erased-${leadId}@erased.invalid`;

/** Erase: every message keeps its place (and its time) and loses its words; each answer's job loses what the person wrote. */
export async function forgetConversation(deps: Pick<Deps, 'store'>, leadId: string): Promise<void> {
  for (const item of await queryAll(deps.store, messagesOfLead(leadId))) await blank(deps, item, leadId);
  for (const job of await queryAll(deps.store, answersOfLead(leadId))) {
    await deps.store.update({ pk: job.pk, sk: job.sk }, { remove: ['body', 'answerSubject', 'subject', 'thread'] });
  }
}

/** One reply's text, when the erase of its sender reaches it under another lead (a colleague answering in a lead's thread). */
export async function forgetReplyText(deps: Pick<Deps, 'store'>, reply: Item): Promise<void> {
  const leadId = String(reply.leadId ?? '');
  if (!leadId || reply.kind !== 'REPLY') return;
  // Its item is ordered by when it was read, which the reply's row does not hold: found in the lead's messages (an erase is rare).
  for (const item of await queryAll(deps.store, messagesOfLead(leadId))) if (item.replyId === reply.id) await blank(deps, item, leadId);
}

async function blank(deps: Pick<Deps, 'store'>, item: Item, leadId: string): Promise<void> {
  const set = item.direction === 'in' ? { text: '', subject: '', fromEmail: erasedFrom(leadId) } : { text: '', subject: '' };
  await deps.store.update({ pk: item.pk, sk: item.sk }, { set, remove: ['headerId'] });
}

/** Delete: the messages and the Idempotency-Key items go; open answers are cancelled and finished ones deleted (one being sent stays until its sender settles it, and is then emptied by this run's forget). */
export async function deleteConversation(deps: Pick<Deps, 'store'>, leadId: string): Promise<void> {
  for (const item of await queryAll(deps.store, messagesOfLead(leadId))) await deps.store.delete({ pk: item.pk, sk: item.sk });
  for (const item of await queryAll(deps.store, answerKeysOfLead(leadId))) await deps.store.delete({ pk: item.pk, sk: item.sk });
  for (const item of await queryAll(deps.store, answersOfLead(leadId))) {
    const job = jobFromItem(item);
    if (job.state === 'SCHEDULED' || job.state === 'QUEUED' || job.state === 'PARKED')
      await move(deps, job, 'CANCELLED', { set: { reason: 'lead deleted' } });
    try {
      await deps.store.delete(
        { pk: item.pk, sk: item.sk },
        { if: { or: ['SENT', 'FAILED', 'CANCELLED'].map((value) => ({ attr: 'state', op: '=' as const, value })) } },
      );
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      // Being sent right now: it stays until settled, without the person's words.
      await deps.store.update({ pk: item.pk, sk: item.sk }, { remove: ['body', 'answerSubject', 'subject', 'thread'] });
    }
  }
}
