/**
 * What goes with a hard-deleted lead (DELETE /v1/leads/{id}): everything
 * stored about it beside its row. Once the row is gone an erase of the
 * address (found by the address's rows) can no longer reach any of it, so
 * the delete itself must leave nothing personal behind. The campaign's
 * figures keep their counts: they are counters, not these items.
 */
import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import { inboundOfLead } from '../inbound/keys.ts';
import { cancelOpenJobs } from '../sending/jobs.ts';
import { jobKey, jobKeysOfLead } from '../sending/keys.ts';
import type { Key } from '../ports/store.ts';
import { eraseLeadEvents } from '../webhooks/events.ts';
import { deleteConversation } from '../conversation/erase.ts';
import { forgetReplyParts } from '../inbound/erase.ts';

/** Sent subjects carry the lead's fields too: its jobs keep their state and lose the words. */
export async function forgetSubjects(deps: Pick<Deps, 'store'>, leadId: string): Promise<void> {
  for (const key of jobKeysOfLead(leadId)) {
    if (await deps.store.get(key)) await deps.store.update(key, { remove: ['subject', 'aiBody'] });
  }
}

/** A job of a deleted lead, once it has ended (its counts are kept by the queue's counters, not by the row). */
async function removeEndedJob(deps: Pick<Deps, 'store'>, key: Key): Promise<void> {
  try {
    await deps.store.delete(key, {
      if: { or: ['SENT', 'FAILED', 'CANCELLED'].map((value) => ({ attr: 'state', op: '=' as const, value })) },
    });
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
  }
}

/**
 * The email of a lead deleted while it was being sent, now recorded: the delete left its job to the sender
 * (ending it then would have lost the send's count), and it goes now, as the delete's other jobs went.
 */
export async function removeJobOfDeletedLead(deps: Pick<Deps, 'store'>, jobId: string): Promise<void> {
  await removeEndedJob(deps, jobKey(jobId));
}

/** Everything attached to the deleted lead `leadId`, after its row went. Safe to run twice. */
export async function removeAttached(deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>, leadId: string): Promise<void> {
  // Its queued emails end, then its finished jobs go with the row (the same address added again gets the same id and a fresh
  // sequence); one being sent right now stays, without its subject, until the sender records it (removeJobOfDeletedLead).
  await cancelOpenJobs(deps, leadId, 'lead deleted');
  for (const key of jobKeysOfLead(leadId)) await removeEndedJob(deps, key);
  await forgetSubjects(deps, leadId);
  // Its webhook events (a bounce's names the address, a reply's its words): emptied, and one still owed given up.
  await eraseLeadEvents(deps, leadId, 'the lead was deleted before the event was delivered');
  // Its conversation (the text of each message, a person's answers and their Idempotency-Keys).
  await deleteConversation(deps, leadId);
  // What was read from the lead (its replies' words and address, their referrals' pointers, words waiting for the AI) goes
  // with the row; the campaign's counts stay.
  for (const item of await queryAll(deps.store, inboundOfLead(leadId))) {
    await forgetReplyParts(deps, item);
    await deps.store.delete({ pk: item.pk, sk: item.sk });
  }
}
