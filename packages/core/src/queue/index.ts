import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { parse } from '../validate.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS } from '../sending/cadence.ts';
import { claimedJobs, dueJobs, queueCounterKeys, queueSwitchKey, UNCONFIRMED } from '../sending/keys.ts';
import { eachLimited, queryAll, queryShards } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import { allCampaigns } from '../campaign/keys.ts';
import { fromItem as campaignFromItem } from '../campaign/entity.ts';
import { writeEvent } from '../webhooks/events.ts';
import { queuePaused } from '../sending/sender.ts';
import { queueSwitchFromItem } from '../sending/queue.entity.ts';
import { kindOf } from '../job-kinds.ts';
import { fromItem as jobFromItem, type Job } from '../sending/job.entity.ts';
import { countersFromItem } from './entity.ts';
import type { ListedJobState, QueueStatusView } from './queue.view.ts';

const JOBS_SHOWN = 50;

/** POST /v1/queue/pause's body. */
export const PauseInput = z.strictObject({ paused: z.boolean({ error: 'must be true or false' }) });

/**
 * GET /v1/queue/status, from the kept state counters (summed over their
 * shards; nothing is counted row by row): waiting = on the send queue, due
 * within 15 minutes; delayed = planned for later (or held by a paused
 * campaign); active = being sent; completed = sent; failed = failed for good;
 * unconfirmed = sent whose outcome a crash left unknown and that were taken as
 * sent (counted in completed too).
 */
export async function status(deps: Pick<Deps, 'store' | 'clock'>): Promise<QueueStatusView> {
  const now = deps.clock.now();
  const [counters, isPaused, active, upcoming] = await Promise.all([
    deps.store.batchGet(queueCounterKeys()),
    queuePaused(deps),
    queryShards(deps.store, claimedJobs(), { limit: JOBS_SHOWN }),
    queryShards(deps.store, dueJobs(), { limit: JOBS_SHOWN }),
  ]);
  const shards = counters.map(countersFromItem);
  const n = (state: string) =>
    Math.max(
      0,
      shards.reduce((sum, countOf) => sum + countOf(state), 0),
    );
  // Only a campaign step carries a campaign, a lead and a step; the stored job's shape leaves them to its kind.
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const job = (j: Job, state: ListedJobState) => ({
    id: j.id,
    kind: kindOf(j).label,
    campaignId: text(j.campaignId),
    leadId: text(j.leadId),
    step: typeof j.step === 'number' ? j.step : undefined,
    mailboxId: j.mailboxId ?? null,
    state,
    dueAt: new Date(j.dueAt).toISOString(),
    attempts: j.attempts,
    lastError: j.lastError ?? null,
  });
  const jobs = [
    ...active.map(jobFromItem).map((j) => job(j, 'active')),
    ...upcoming.map(jobFromItem).map((j) => job(j, j.dueAt <= now ? 'waiting' : 'delayed')),
  ].slice(0, JOBS_SHOWN);
  return {
    counts: {
      waiting: n('QUEUED'),
      active: n('CLAIMED'),
      delayed: n('SCHEDULED') + n('PARKED'),
      completed: n('SENT'),
      failed: n('FAILED'),
      unconfirmed: n(UNCONFIRMED),
    },
    isPaused,
    jobs,
    throttling: { cadenceFloorSeconds: CADENCE_FLOOR_SECONDS, jitterSeconds: JITTER_SECONDS },
  };
}

/**
 * POST /v1/queue/pause: a real pause. Nothing is sent while it holds; jobs keep their place and go on resume.
 * Turning it on stops every running campaign, so each one's campaign.paused event (reason `queue`) follows.
 */
export async function pause(deps: Pick<Deps, 'store' | 'clock' | 'wallClock' | 'log'>, body: unknown) {
  const { paused } = parse(PauseInput, body);
  const changedAt = new Date(deps.wallClock.now()).toISOString();
  try {
    // Only the change from running to paused is the fact: pausing a paused queue again announces nothing.
    await deps.store.put(
      { ...queueSwitchKey, paused, changedAt, ...(paused ? { announced: false } : {}) },
      paused
        ? {
            if: {
              or: [
                { attr: 'paused', exists: false },
                { attr: 'paused', op: '=', value: false },
              ],
            },
          }
        : {},
    );
    if (paused) await announcePause(deps, changedAt);
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
  }
  return status(deps);
}

/** A pause still unannounced this long after it was made (wall ms) was cut short: its request is no longer writing. */
export const ANNOUNCE_GRACE_MS = 60_000;
/** How often a process looks for a pause cut short (wall ms). */
const CHECK_EVERY_MS = 30_000;
const lastChecked = new WeakMap<object, number>();

/**
 * The campaign.paused events of a queue pause, one per ACTIVE campaign, each in its own write after the switch
 * (a pause may stop more campaigns than one transaction holds). Keyed by the pause's time, so a pause repeated
 * after a resume announces again, and written only when missing, so announcing twice gives each event once.
 * The switch says `announced` once all are written; until then finishPauseAnnouncement writes what is missing.
 * Says whether all are written now.
 */
async function announcePause(deps: Pick<Deps, 'store' | 'clock' | 'wallClock' | 'log'>, changedAt: string): Promise<boolean> {
  const running = (await queryAll(deps.store, allCampaigns())).map(campaignFromItem).filter((c) => c.status === 'ACTIVE');
  let unwritten = 0;
  // The pause holds whatever happens to its events: one that cannot be written is logged, not answered as a failed pause.
  await eachLimited(running, 4, (c) =>
    writeEvent(deps, 'campaign.paused', { campaignId: c.id, reason: 'queue' }, `QUEUE#PAUSED#${changedAt}#${c.id}`).then(
      () => undefined,
      (err) => {
        unwritten++;
        deps.log.error('webhooks: a campaign.paused event of a queue pause was not written; the webhooks schedule tries again', {
          campaignId: c.id,
          err,
        });
      },
    ),
  );
  if (unwritten) return false;
  await deps.store
    .update(queueSwitchKey, { set: { announced: true }, if: { attr: 'changedAt', op: '=', value: changedAt } })
    .catch((err) => {
      if (!(err instanceof ConditionFailedError)) throw err;
    });
  return true;
}

/**
 * Run by the webhooks schedule: a pause whose campaign.paused events were not all written (a crash between the
 * switch and them, a store error) is announced again, for the campaigns running now (one launched during the
 * pause is announced too; a resume first ends the need). Says whether it tried, and whether all are written now.
 */
export async function finishPauseAnnouncement(
  deps: Pick<Deps, 'store' | 'clock' | 'wallClock' | 'log'>,
): Promise<'none' | 'written' | 'unwritten'> {
  // A schedule ticking several times a second (a high TIME_SCALE) looks at most every CHECK_EVERY_MS.
  const wallNow = deps.wallClock.now();
  if (wallNow - (lastChecked.get(deps.store) ?? -Infinity) < CHECK_EVERY_MS) return 'none';
  lastChecked.set(deps.store, wallNow);
  const sw = queueSwitchFromItem(await deps.store.get(queueSwitchKey));
  if (!sw.paused || sw.announced !== false || !sw.changedAt) return 'none';
  if (wallNow - Date.parse(sw.changedAt) < ANNOUNCE_GRACE_MS) return 'none';
  return (await announcePause(deps, sw.changedAt)) ? 'written' : 'unwritten';
}
