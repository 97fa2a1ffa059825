/**
 * A person's answer on the one send path (sending/sender.ts): from the lead's pinned mailbox, in its
 * thread, with every guardrail a campaign email has (footer with the domain's address and the unsubscribe
 * link, RFC 8058 headers, the suppression list at the claim). It is `unthrottled` (job-kind.ts): no queue
 * pause, cadence floor, window, campaign status, breaker or REPLIED status holds it, and the mailbox's daily
 * count counts it without refusing it. Exactly once like a campaign step: claimed before SMTP, recorded
 * after, and an unknown outcome is taken as sent, never sent again (docs/sending.md, Exactly once).
 */
import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, TransactionFailedError } from '../errors.ts';
import type { Condition, TransactOp } from '../ports/store.ts';
import { unsubscribeUrl } from '../guardrails/unsubscribe.ts';
import { campaignKey } from '../campaign/keys.ts';
import { fromItem as campaignFromItem } from '../campaign/entity.ts';
import { fromItem as leadFromItem, type Lead } from '../lead/entity.ts';
import { leadKey } from '../lead/keys.ts';
import * as facts from '../lead/facts.ts';
import { sentMessageKey } from '../inbound/keys.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { wrapEmail, type Composed } from '../sending/compose.ts';
import { Job } from '../sending/job.entity.ts';
import { foldCounters, move, sentJobOps } from '../sending/jobs.ts';
import type { JobControl, JobKind, SendOutcome, SendPlan } from '../sending/job-kind.ts';
import type { Reads } from '../sending/read-batch.ts';
import { jobKey } from '../sending/keys.ts';
import { eventOps } from '../webhooks/events.ts';
import { sentMessageItem } from './entity.ts';

/** Stored on an answer's job: the registry (job-kinds.ts) finds this kind by it. */
export const ANSWER_KIND = 'answer';

/** An answer's job: what the person wrote and the thread it goes in, fixed when it was asked for (conversation/index.ts). */
export const AnswerJob = Job.extend({
  leadId: z.string(),
  campaignId: z.string(),
  /** The person's words, as they wrote them (gone once the lead is erased, with the subject and the thread). */
  body: z.string().default(''),
  answerSubject: z.string().default(''),
  /** The thread's Message-IDs, oldest first; the last is the message answered (In-Reply-To). */
  thread: z.array(z.string()).default([]),
  /**
   * Chosen when the answer was asked for, so the 202 names the id the email goes with. A field of its own:
   * the claim's `messageId` is dropped when a dead claim is made due again, this one never is.
   */
  answerMessageId: z.string(),
});
export type AnswerJob = z.infer<typeof AnswerJob>;
export const answerOf = (job: unknown): AnswerJob => AnswerJob.parse(job);

/** The lead may still be written to: not deleted, not erased. */
const leadLives: Condition = { and: [{ itemExists: true }, { attr: 'erased', exists: false }] };

export async function planAnswerSend(deps: Deps, queued: Job, read: Reads, ctl: JobControl): Promise<SendPlan | SendOutcome> {
  const job = answerOf(queued);
  const lead = read.parsed(leadKey(job.leadId), leadFromItem);
  if (!lead || lead.erased) return ctl.cancel('lead deleted or erased');
  // Only for its unsubscribe link's template: an archived campaign does not hold a person's answer.
  const campaign = read.parsed(campaignKey(job.campaignId), campaignFromItem);
  // No window (ctl.open stays unset): a person answering wants it to go now.
  return {
    mailboxIds: job.mailboxId ? [job.mailboxId] : [],
    pinned: true,
    to: lead.email,
    paid: false,
    guard: { key: leadKey(lead.id), if: leadLives, reason: 'the lead was erased or deleted before the send' },
    onSuppressed: async () => void (await facts.stopEverywhere(deps, lead.email)),
    compose: (mailbox, domain) => composeAnswer(deps, job, lead, mailbox, domain, campaign ?? {}),
    recordSent: async (held, mailbox, composed) => void (await answerSent(deps, answerOf(held), mailbox.id, { text: composed.email.text })),
    async recordBounce(held, mailbox, lastError, bounce) {
      const at = new Date(deps.clock.now()).toISOString();
      await move(deps, held, 'FAILED', { set: { lastError, failedAt: at } });
      await facts.bounced(deps, lead, { source: 'smtp', sentFrom: mailbox.id, note: { ...bounce, confirmed: true, at } });
    },
    async recordUnknown(held, mailbox, composed) {
      // The server may have taken it: taken as sent, never sent again (a person can answer once more).
      deps.metrics.count('UnconfirmedSends');
      deps.log.warn('answer outcome unknown: taken as sent, never resent', { jobId: held.id, mailboxId: mailbox.id });
      await answerSent(deps, answerOf(held), mailbox.id, { text: composed.email.text, unconfirmed: true });
    },
  };
}

/** The answer wrapped like every email (compose.ts wrapEmail), with the Message-ID its 202 named. */
async function composeAnswer(
  deps: Deps,
  job: AnswerJob,
  lead: Lead,
  mailbox: Mailbox,
  domain: Parameters<typeof wrapEmail>[0]['domain'],
  campaign: { unsubscribeUrlTemplate?: string | null },
): Promise<Composed> {
  const url = await unsubscribeUrl(deps, lead, campaign);
  const email = wrapEmail({
    mailbox,
    domain,
    to: lead.email,
    subject: job.answerSubject,
    body: job.body,
    unsubscribeUrl: url,
    aiDisclosure: false,
    thread: job.thread,
  });
  return { aiGenerated: false, subject: job.answerSubject, email: { ...email, messageId: job.answerMessageId } };
}

/**
 * Sent, in one transaction: the job is SENT, the Message-ID is known (a reply to the answer finds the
 * lead), the lead's thread gains it (the next answer's References), the conversation keeps its text, and
 * email.sent goes with `step: null`. The campaign's counts and the lead's status do not move: it is not a
 * step of the sequence. A lead erased or deleted meanwhile gets nothing back; the job is still recorded.
 */
export async function answerSent(
  deps: Deps,
  job: AnswerJob,
  mailboxId: string,
  how: { text: string; unconfirmed?: boolean },
): Promise<void> {
  const now = deps.clock.now();
  const sentAt = new Date(now).toISOString();
  const unconfirmed = Boolean(how.unconfirmed);
  const event = await eventOps(
    deps,
    'email.sent',
    { leadId: job.leadId, campaignId: job.campaignId, mailboxId, step: null, messageId: job.answerMessageId, sentAt },
    job.id,
  );
  const base: TransactOp[] = [
    ...sentJobOps(job, { sentAt, subject: job.answerSubject }, unconfirmed),
    { put: { ...sentMessageKey(job.answerMessageId), jobId: job.id, leadId: job.leadId, campaignId: job.campaignId, mailboxId } },
  ];
  const row = await deps.store.get(leadKey(job.leadId));
  const lead = row && leadFromItem(row);
  const withLead: TransactOp[] =
    lead && !lead.erased
      ? [
          {
            update: leadKey(lead.id),
            change: {
              set: {
                thread: {
                  firstSubject: lead.thread?.firstSubject ?? job.answerSubject,
                  messageIds: [...(lead.thread?.messageIds ?? []), job.answerMessageId],
                },
                lastSentAt: sentAt,
              },
              if: leadLives,
            },
          },
          {
            put: sentMessageItem(lead.id, now, {
              step: null,
              messageId: job.answerMessageId,
              subject: job.answerSubject,
              text: how.text,
              jobId: job.id,
            }),
          },
        ]
      : [];
  try {
    await deps.store.transact([...foldCounters([...base, ...withLead]), ...event]);
  } catch (err) {
    if (!(err instanceof TransactionFailedError)) throw err;
    if ((await deps.store.get(jobKey(job.id)))?.state === 'SENT') return;
    if (err.failed.includes(0) || !withLead.length) throw err;
    // Erased or deleted since it was read: recorded as sent without the words.
    await deps.store.transact([...foldCounters(base), ...event]);
  }
}

/** A claim whose email is known to have gone (its acceptance was queued) or is taken as sent: the person's words are what is kept. */
async function settle(deps: Deps, claimed: Job, unconfirmed: boolean): Promise<boolean> {
  const job = answerOf(claimed);
  try {
    await answerSent(deps, job, job.mailboxId ?? '', { text: job.body, unconfirmed });
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
  return true;
}

export const answerKind: JobKind = {
  name: ANSWER_KIND,
  label: 'answer',
  unthrottled: true,
  refOf: (job) => {
    const { leadId, campaignId } = answerOf(job);
    return { leadId, campaignId };
  },
  reads: (ref) => [...(ref.leadId ? [leadKey(ref.leadId)] : []), ...(ref.campaignId ? [campaignKey(ref.campaignId)] : [])],
  plan: planAnswerSend,
  settleSent: async (deps, job) => void (await settle(deps, job, false)),
  // Never sent again: a person's answer that may have gone is taken as sent.
  settleUnknown: async (deps, job) => {
    const settled = await settle(deps, job, true);
    if (settled) deps.log.warn('answer outcome unknown after a crash: taken as sent, never resent', { jobId: job.id });
    return settled;
  },
};
