import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import type { Item } from '../ports/store.ts';
import { move } from './jobs.ts';
import { CLAIMED, DUE, PLANNING, timeKey } from './keys.ts';
import { planChunk } from './planning.ts';
import { filesSentMail, recordSent } from './campaign-send.ts';
import { imapLogin } from '../mailbox/access.ts';
import { queuePaused } from './sender.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { campaignKey } from '../campaign/keys.ts';
import { leadKey } from '../lead/keys.ts';

/** SQS holds a message at most 15 minutes (wall clock); later jobs stay in the table. */
export const SQS_MAX_DELAY_MS = 900_000;
/** Jobs queued per tick at most, so one tick stays short whatever the backlog. */
export const DISPATCH_BATCH = 500;
/** A queued message not consumed in this long (wall clock) is taken as lost and queued again. */
export const QUEUED_STALE_MS = 30 * 60_000;
/** A claim this old (wall clock) belongs to a sender that died mid-send. */
export const CLAIM_STALE_MS = 10 * 60_000;

export interface DispatchOptions {
  /**
   * Local start-up recovery: every QUEUED job is queued again (the local queue
   * keeps nothing across a restart) and every claim is settled (its sender was this process).
   */
  requeueAll?: boolean;
}

/**
 * One dispatcher tick (the EventBridge schedule; a timer locally):
 * 1. plans the next chunk of each launching campaign;
 * 2. queues every job due within SQS's 15-minute horizon, each with its
 *    delay (SCHEDULED → QUEUED first, conditionally, so two dispatchers
 *    never queue one job twice);
 * 3. queues again what a lost message left QUEUED (dead-letter, restart);
 * 4. settles claims left by a sender that died mid-send (never resent).
 */
export async function dispatch(deps: Deps, opts: DispatchOptions = {}): Promise<{ queued: number; recovered: number; settled: number }> {
  for (const c of await queryAll(deps.store, { index: 'gsi3', pk: PLANNING })) await planChunk(deps, String(c.id));
  const settled = await settleDeadClaims(deps, Boolean(opts.requeueAll));
  if (await queuePaused(deps)) return { queued: 0, recovered: 0, settled };

  const now = deps.clock.now();
  const wallNow = deps.wallClock.now();
  // SQS's limit is wall-clock time; in engine time it is TIME_SCALE times longer.
  const horizon = now + SQS_MAX_DELAY_MS * deps.config.timeScale;
  const page = await deps.store.query({ index: 'gsi1', pk: DUE, skBetween: [timeKey(0), `${timeKey(horizon)}~`], limit: DISPATCH_BATCH });

  const toQueue: Item[] = [];
  let recovered = 0;
  for (const job of page.items) {
    if (job.state === 'SCHEDULED') {
      if (await move(deps, job, 'QUEUED', { set: { queuedAt: wallNow } })) toQueue.push(job);
    } else if (job.state === 'QUEUED' && (opts.requeueAll || wallNow - Number(job.queuedAt ?? 0) > QUEUED_STALE_MS)) {
      // Conditional on the old queuedAt: one dispatcher re-queues it.
      try {
        await deps.store.update(
          { pk: job.pk, sk: job.sk },
          { set: { queuedAt: wallNow }, if: { and: [{ attr: 'state', op: '=', value: 'QUEUED' }, { attr: 'queuedAt', op: '=', value: job.queuedAt ?? 0 }] } },
        );
        toQueue.push(job);
        recovered++;
      } catch (err) {
        if ((err as Error).name !== 'ConditionFailedError') throw err;
      }
    }
  }
  if (toQueue.length) {
    await deps.queue.enqueue(toQueue.map((j) => ({ jobId: String(j.id), delayMs: Math.max(0, Number(j.dueAt) - now) })));
  }
  return { queued: toQueue.length - recovered, recovered, settled };
}

/**
 * A job still CLAIMED long after its claim belongs to a sender that died.
 * Before SMTP began (no smtpStartedAt) it is simply scheduled again. After,
 * SMTP may or may not have taken the email, so it is never resent blindly
 * (docs/sending.md, Exactly once): it is marked FAILED with the reason, and
 * counted in the queue's failed.
 */
async function settleDeadClaims(deps: Deps, atStartUp: boolean): Promise<number> {
  // At a local start-up the process that held every claim is gone: all of them are dead.
  const cutoff = atStartUp ? deps.wallClock.now() : deps.wallClock.now() - CLAIM_STALE_MS;
  const stale = await deps.store.query({ index: 'gsi3', pk: CLAIMED, skBetween: [timeKey(0), `${timeKey(cutoff)}~`], limit: 100 });
  let settled = 0;
  for (const job of stale.items) {
    if (!job.smtpStartedAt) {
      // Conditional on the same claim still being there without SMTP begun (the index may lag the item).
      const again = await move(deps, job, 'SCHEDULED', { set: { dueAt: deps.clock.now() }, remove: ['messageId', 'claimId'] }, [], [
        { attr: 'smtpStartedAt', exists: false },
        { attr: 'claimId', op: '=', value: job.claimId ?? '' },
      ]);
      if (again) settled++;
      continue;
    }
    if (job.kind === 'probe') {
      // A placement sample is never sent again either: the read of its seed inbox tells whether it arrived.
      const ok = await move(deps, job, 'FAILED', {
        set: { lastError: 'outcome unknown: the sender stopped during the send', failedAt: new Date(deps.clock.now()).toISOString(), unknownOutcome: true, sentAtMs: job.claimedAt },
      });
      if (ok) settled++;
      continue;
    }
    const mailbox = job.mailboxId ? await deps.store.get(mailboxKey(String(job.mailboxId))) : undefined;
    if (mailbox && filesSentMail(mailbox)) {
      // GOOGLE and MICROSOFT file what they send: the Sent folder says whether it went.
      if (await settleBySentFolder(deps, job, mailbox)) settled++;
      continue;
    }
    const ok = await move(deps, job, 'FAILED', {
      set: { lastError: 'outcome unknown: the sender stopped during the send, so it was not sent again', failedAt: new Date(deps.clock.now()).toISOString() },
    });
    if (ok) {
      settled++;
      deps.log.error('send outcome unknown after a crash; not resent', { jobId: job.id, mailboxId: job.mailboxId, messageId: job.messageId });
    }
  }
  return settled;
}

/** Give up looking after a day of not being able to read the Sent folder. */
const SENT_LOOKUP_GIVE_UP_MS = 24 * 3_600_000;

/**
 * Found in the Sent folder: it went, and is recorded as sent (follow-ups
 * planned). Not found: it did not go, and is scheduled again. The folder
 * cannot be read: asked again at the next tick, for a day, then FAILED.
 */
async function settleBySentFolder(deps: Deps, job: Item, mailbox: Item): Promise<boolean> {
  try {
    const found = await deps.mailReader.sentContains(await imapLogin(deps, mailbox), String(job.messageId));
    if (found) {
      const campaign = await deps.store.get(campaignKey(String(job.campaignId)));
      const lead = await deps.store.get(leadKey(String(job.leadId)));
      if (!campaign || !lead) {
        return move(deps, job, 'SENT', { set: { sentAt: new Date(deps.clock.now()).toISOString(), lastError: 'found in the Sent folder' } });
      }
      await recordSent(deps, { job, campaign, lead, mailbox, subject: String(job.subject ?? ''), messageId: String(job.messageId), aiGenerated: Boolean(job.aiGenerated) });
      deps.log.warn('send outcome settled: found in the Sent folder', { jobId: job.id });
      return true;
    }
    deps.log.warn('send outcome settled: not in the Sent folder, sending again', { jobId: job.id });
    return move(deps, job, 'SCHEDULED', { set: { dueAt: deps.clock.now(), lastError: 'not in the Sent folder after an unknown outcome: sent again' }, remove: ['messageId', 'claimId', 'smtpStartedAt'] });
  } catch (err) {
    deps.log.warn('could not read the Sent folder; will try again', { jobId: job.id, err });
    if (deps.wallClock.now() - Number(job.smtpStartedAt) < SENT_LOOKUP_GIVE_UP_MS) return false;
    return move(deps, job, 'FAILED', { set: { lastError: 'outcome unknown: the Sent folder could not be read for a day', failedAt: new Date(deps.clock.now()).toISOString() } });
  }
}
