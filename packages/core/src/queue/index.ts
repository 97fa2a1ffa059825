import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { parse } from '../validate.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS } from '../sending/cadence.ts';
import { claimedJobs, dueJobs, queueCounterKeys, queueSwitchKey, stateCounter, timeKey } from '../sending/keys.ts';
import { queryShards } from '../collections.ts';
import { queuePaused } from '../sending/sender.ts';
import { kindOf } from '../job-kinds.ts';
import type { Item } from '../ports/store.ts';

const JOBS_SHOWN = 50;

/** POST /v1/queue/pause's body. */
export const PauseInput = z.strictObject({ paused: z.boolean({ error: 'must be true or false' }) });

/**
 * GET /v1/queue/status. Counts come from the kept state counters (summed
 * over their shards) and one COUNT per due-index shard of the jobs due now:
 * waiting = due now (queued or about to be), delayed = planned for later (or
 * held by a paused campaign), active = being sent, completed = sent, failed
 * = failed for good. The COUNT reads only the index keys of jobs already
 * due, which a running queue keeps few.
 */
export async function status(deps: Pick<Deps, 'store' | 'clock'>) {
  const now = deps.clock.now();
  const [counters, isPaused, dueNow, active, upcoming] = await Promise.all([
    deps.store.batchGet(queueCounterKeys()),
    queuePaused(deps),
    Promise.all(dueJobs().map((q) => deps.store.count({ ...q, skBetween: [timeKey(0), `${timeKey(now)}~`] }))),
    queryShards(deps.store, claimedJobs(), { limit: JOBS_SHOWN }),
    queryShards(deps.store, dueJobs(), { limit: JOBS_SHOWN }),
  ]);
  const n = (state: string) => Math.max(0, counters.reduce((sum, c) => sum + Number(c[stateCounter(state)] ?? 0), 0));
  const waiting = dueNow.reduce((a, b) => a + b, 0);
  const pending = n('SCHEDULED') + n('QUEUED') + n('PARKED');
  const job = (j: Record<string, unknown>, state: 'waiting' | 'active' | 'delayed') => ({
    id: j.id,
    kind: kindOf(j as Item).label,
    campaignId: j.campaignId ?? null,
    leadId: j.leadId ?? null,
    step: j.step,
    mailboxId: j.mailboxId ?? null,
    state,
    dueAt: new Date(Number(j.dueAt)).toISOString(),
    attempts: Number(j.attempts ?? 0),
    lastError: j.lastError ?? null,
  });
  const jobs = [
    ...active.map((j) => job(j, 'active')),
    ...upcoming.map((j) => job(j, Number(j.dueAt) <= now ? 'waiting' : 'delayed')),
  ].slice(0, JOBS_SHOWN);
  return {
    counts: {
      waiting,
      active: n('CLAIMED'),
      delayed: Math.max(0, pending - waiting),
      completed: n('SENT'),
      failed: n('FAILED'),
    },
    isPaused,
    jobs,
    throttling: { cadenceFloorSeconds: CADENCE_FLOOR_SECONDS, jitterSeconds: JITTER_SECONDS },
  };
}

/** POST /v1/queue/pause: a real pause. Nothing is sent while it holds; jobs keep their place and go on resume. */
export async function pause(deps: Pick<Deps, 'store' | 'clock' | 'wallClock'>, body: unknown) {
  const { paused } = parse(PauseInput, body);
  await deps.store.put({ ...queueSwitchKey, paused, changedAt: new Date(deps.wallClock.now()).toISOString() });
  return status(deps);
}
