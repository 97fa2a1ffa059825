import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { parse } from '../validate.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS } from '../sending/cadence.ts';
import { claimedJobs, dueJobs, queueCounterKey, queueSwitchKey, stateCounter, timeKey } from '../sending/keys.ts';
import { queuePaused } from '../sending/sender.ts';
import { kindOf } from '../job-kinds.ts';
import type { Item } from '../ports/store.ts';

const JOBS_SHOWN = 50;

/** POST /v1/queue/pause's body. */
export const PauseInput = z.strictObject({ paused: z.boolean({ error: 'must be true or false' }) });

/**
 * GET /v1/queue/status. Counts come from the state counters and one COUNT
 * query on the due index: waiting = due now (queued or about to be),
 * delayed = planned for later (or held by a paused campaign), active =
 * being sent, completed = sent, failed = failed for good.
 */
export async function status(deps: Pick<Deps, 'store' | 'clock'>) {
  const now = deps.clock.now();
  const [counters, isPaused, waiting, active, upcoming] = await Promise.all([
    deps.store.get(queueCounterKey),
    queuePaused(deps),
    deps.store.count({ ...dueJobs(), skBetween: [timeKey(0), `${timeKey(now)}~`] }),
    deps.store.query({ ...claimedJobs(), limit: JOBS_SHOWN }),
    deps.store.query({ ...dueJobs(), limit: JOBS_SHOWN }),
  ]);
  const n = (state: string) => Math.max(0, Number(counters?.[stateCounter(state)] ?? 0));
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
    ...active.items.map((j) => job(j, 'active')),
    ...upcoming.items.map((j) => job(j, Number(j.dueAt) <= now ? 'waiting' : 'delayed')),
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
