import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { parse } from '../validate.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS } from '../sending/cadence.ts';
import { claimedJobs, dueJobs, queueCounterKeys, queueSwitchKey, stateCounter } from '../sending/keys.ts';
import { queryShards } from '../collections.ts';
import { queuePaused } from '../sending/sender.ts';
import { kindOf } from '../job-kinds.ts';
import type { Item } from '../ports/store.ts';

const JOBS_SHOWN = 50;

/** POST /v1/queue/pause's body. */
export const PauseInput = z.strictObject({ paused: z.boolean({ error: 'must be true or false' }) });

/**
 * GET /v1/queue/status, from the kept state counters (summed over their
 * shards; nothing is counted row by row): waiting = on the send queue, due
 * within 15 minutes; delayed = planned for later (or held by a paused
 * campaign); active = being sent; completed = sent; failed = failed for good.
 */
export async function status(deps: Pick<Deps, 'store' | 'clock'>) {
  const now = deps.clock.now();
  const [counters, isPaused, active, upcoming] = await Promise.all([
    deps.store.batchGet(queueCounterKeys()),
    queuePaused(deps),
    queryShards(deps.store, claimedJobs(), { limit: JOBS_SHOWN }),
    queryShards(deps.store, dueJobs(), { limit: JOBS_SHOWN }),
  ]);
  const n = (state: string) => Math.max(0, counters.reduce((sum, c) => sum + Number(c[stateCounter(state)] ?? 0), 0));
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
      waiting: n('QUEUED'),
      active: n('CLAIMED'),
      delayed: n('SCHEDULED') + n('PARKED'),
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
