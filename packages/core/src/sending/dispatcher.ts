import type { Deps } from '../deps.ts';
import { queryAll, queryShards } from '../collections.ts';
import type { Item } from '../ports/store.ts';
import { move } from './jobs.ts';
import { campaignsPlanning, claimedJobs, dueJobs, timeKey } from './keys.ts';
import { planChunk } from './planning.ts';
import { queuePaused } from './sender.ts';
import { kindOf, refOf } from '../job-kinds.ts';

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
  for (const c of await queryAll(deps.store, campaignsPlanning())) await planChunk(deps, String(c.id));
  const settled = await settleDeadClaims(deps, Boolean(opts.requeueAll));
  if (await queuePaused(deps)) return { queued: 0, recovered: 0, settled };

  const now = deps.clock.now();
  const wallNow = deps.wallClock.now();
  // SQS's limit is wall-clock time; in engine time it is TIME_SCALE times longer.
  const horizon = now + SQS_MAX_DELAY_MS * deps.config.timeScale;
  const due = await queryShards(deps.store, dueJobs(), { skBetween: [timeKey(0), `${timeKey(horizon)}~`], limit: DISPATCH_BATCH });

  const toQueue: Item[] = [];
  let recovered = 0;
  for (const job of due) {
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
    await deps.queue.enqueue(toQueue.map((j) => ({ jobId: String(j.id), ref: refOf(j), delayMs: Math.max(0, Number(j.dueAt) - now) })));
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
  const stale = await queryShards(deps.store, claimedJobs(), { skBetween: [timeKey(0), `${timeKey(cutoff)}~`], limit: 100 });
  let settled = 0;
  for (const job of stale) {
    if (!job.smtpStartedAt) {
      // Conditional on the same claim still being there without SMTP begun (the index may lag the item).
      const again = await move(deps, job, 'SCHEDULED', { set: { dueAt: deps.clock.now() }, remove: ['messageId', 'claimId'] }, [], [
        { attr: 'smtpStartedAt', exists: false },
        { attr: 'claimId', op: '=', value: job.claimId ?? '' },
      ]);
      if (again) settled++;
      continue;
    }
    if (await kindOf(job).settleUnknown(deps, job)) settled++;
  }
  return settled;
}

