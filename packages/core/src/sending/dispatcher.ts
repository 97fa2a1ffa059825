import type { Deps } from '../deps.ts';
import { eachLimited, queryAll, queryShards } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import { applyGroups, move, moveOps } from './jobs.ts';
import { fromItem, type Job } from './job.entity.ts';
import { fromItem as campaignFromItem } from '../campaign/entity.ts';
import { campaignsPlanning, claimedJobs, dueJobs, JOB_SHARDS, jobKey, timeKey } from './keys.ts';
import { CHECKED_BEFORE_CLAIM } from './due.ts';
import { planChunk } from './first-emails.ts';
import { healWaitingLeads } from './healing.ts';
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

/** Dead claims are looked for at most this often (wall clock) by one process; a Lambda tick is a minute apart anyway. */
const SETTLE_EVERY_MS = 15_000;
const lastSettled = new WeakMap<object, number>();

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
 * 2. queues every job due within 15 minutes (SQS's limit), each with its
 *    delay (SCHEDULED → QUEUED first, conditionally, so two dispatchers
 *    never queue one job twice);
 * 3. queues again what a lost message left QUEUED (dead-letter, restart);
 * 4. settles claims left by a sender that died mid-send (never resent);
 * 5. every few minutes, moves on leads left waiting with no job (healing.ts).
 */
export async function dispatch(deps: Deps, opts: DispatchOptions = {}): Promise<{ queued: number; recovered: number; settled: number }> {
  // A local start-up: the queue kept nothing and this is the only dispatcher. Before anything else, every queued
  // job gets its message again, without a write (a second message for one job is harmless: its claim is conditional).
  const atStart = opts.requeueAll && !(await queuePaused(deps)) ? await requeueQueued(deps) : 0;
  for (const c of (await queryAll(deps.store, campaignsPlanning())).map(campaignFromItem)) await planChunk(deps, c.id);
  const settled = await settleDeadClaims(deps, Boolean(opts.requeueAll));
  if (await queuePaused(deps)) return { queued: 0, recovered: atStart, settled };
  const result = await queueDue(deps, opts, atStart, settled);
  // Last, so that what is due goes on the queue first (a start-up especially); it plans what a next tick queues.
  await healWaitingLeads(deps);
  return result;
}

/** Queues every job due within SQS's horizon, and again what a lost message left QUEUED. */
async function queueDue(
  deps: Deps,
  opts: DispatchOptions,
  atStart: number,
  settled: number,
): Promise<{ queued: number; recovered: number; settled: number }> {
  const now = deps.clock.now();
  const wallNow = deps.wallClock.now();
  // What is due within 15 minutes of engine time goes on the queue (SQS holds a message at most 15 minutes of
  // wall time, which a TIME_SCALE only makes longer): so QUEUED means "due now or very soon", and the
  // queue status counts it without reading the due index.
  const horizon = now + SQS_MAX_DELAY_MS;
  // Ids spread evenly over the shards, so a fair share of each (twice it, for an uneven tick) makes the batch.
  const due = (
    await queryShards(deps.store, dueJobs(), {
      skBetween: [timeKey(0), `${timeKey(horizon)}~`],
      limit: DISPATCH_BATCH,
      perShard: Math.ceil((2 * DISPATCH_BATCH) / JOB_SHARDS),
    })
  ).map(fromItem);

  const toQueue: Job[] = [];
  let recovered = 0;
  // SCHEDULED → QUEUED, conditionally, many jobs to a write.
  const scheduled = due.filter((j) => j.state === 'SCHEDULED');
  const moved = await applyGroups(
    deps,
    scheduled.map((job) => moveOps(job, 'QUEUED', { set: { queuedAt: wallNow } })),
  );
  toQueue.push(...scheduled.filter((_, i) => moved[i]));
  const lost = due.filter((job) => job.state === 'QUEUED' && !opts.requeueAll && wallNow - (job.queuedAt ?? 0) > QUEUED_STALE_MS);
  await eachLimited(lost, 16, async (job) => {
    // Conditional on the old queuedAt: one dispatcher re-queues it.
    try {
      await deps.store.update(jobKey(job.id), {
        set: { queuedAt: wallNow },
        if: {
          and: [
            { attr: 'state', op: '=', value: 'QUEUED' },
            { attr: 'queuedAt', op: '=', value: job.queuedAt ?? 0 },
          ],
        },
      });
      toQueue.push(job);
      recovered++;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  });
  if (toQueue.length) await enqueue(deps, toQueue, now);
  return { queued: toQueue.length - recovered, recovered: recovered + atStart, settled };
}

const enqueue = (deps: Deps, jobs: Job[], now: number) =>
  deps.queue.enqueue(jobs.map((j) => ({ jobId: j.id, ref: refOf(j), delayMs: Math.max(0, j.dueAt - now) })));

/** Every QUEUED job within SQS's horizon gets its message again, a page at a time (a local start-up). */
async function requeueQueued(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const horizon = now + SQS_MAX_DELAY_MS * deps.config.timeScale;
  let requeued = 0;
  await eachLimited(dueJobs(), 3, async (shard) => {
    let cursor: string | undefined;
    do {
      const page = await deps.store.query({ ...shard, skBetween: [timeKey(0), `${timeKey(horizon)}~`], limit: DISPATCH_BATCH, cursor });
      const queued = page.items.filter((j) => j.state === 'QUEUED').map(fromItem);
      if (queued.length) await enqueue(deps, queued, now);
      requeued += queued.length;
      cursor = page.cursor;
    } while (cursor);
  });
  return requeued;
}

/**
 * A job still CLAIMED long after its claim belongs to a sender that died.
 * Before SMTP began (no smtpStartedAt) it is simply scheduled again. After,
 * SMTP may or may not have taken the email, so it is never resent blindly
 * (docs/sending.md, Exactly once): it is marked FAILED with the reason, and
 * counted in the queue's failed.
 */
async function settleDeadClaims(deps: Deps, atStartUp: boolean): Promise<number> {
  // A claim is dead after minutes, so a dispatcher ticking several times a second (a high TIME_SCALE) looks less often.
  const wallNow = deps.wallClock.now();
  const last = lastSettled.get(deps.store) ?? -Infinity;
  if (!atStartUp && wallNow - last < SETTLE_EVERY_MS) return 0;
  lastSettled.set(deps.store, wallNow);
  // At a local start-up the process that held every claim is gone: all of them are dead.
  const cutoff = atStartUp ? deps.wallClock.now() : deps.wallClock.now() - CLAIM_STALE_MS;
  const stale = (await queryShards(deps.store, claimedJobs(), { skBetween: [timeKey(0), `${timeKey(cutoff)}~`], limit: 100 })).map(
    fromItem,
  );
  let settled = 0;
  await eachLimited(stale, 8, async (job) => {
    if (!job.smtpStartedAt) {
      // Conditional on the same claim still being there without SMTP begun (the index may lag the item).
      const now = deps.clock.now();
      const again = await move(
        deps,
        job,
        'SCHEDULED',
        { due: { at: now, now, open: CHECKED_BEFORE_CLAIM }, remove: ['messageId', 'claimId'] },
        [],
        [
          { attr: 'smtpStartedAt', exists: false },
          { attr: 'claimId', op: '=', value: job.claimId ?? '' },
        ],
      );
      if (again) settled++;
      return;
    }
    if (await kindOf(job).settleUnknown(deps, job)) settled++;
  });
  return settled;
}
