/**
 * Reading the seed inboxes of placement runs (docs/placement.md): the
 * placement schedule's tick. Every verdict is written once, conditionally,
 * so ticks that overlap (EventBridge does not wait for the last one) agree.
 */
import type { Deps } from '../deps.ts';
import { eachLimited, queryAll } from '../collections.ts';
import { TransactionFailedError } from '../errors.ts';
import { domainKey } from '../domain/keys.ts';
import type { Placement } from '../ports/mail-reader.ts';
import * as seeds from '../seed/index.ts';
import { seedKey } from '../seed/keys.ts';
import { fromItem as seedFromItem } from '../seed/entity.ts';
import { jobKey } from '../sending/keys.ts';
import { move } from '../sending/jobs.ts';
import type { PlacementRollup } from './placement.schema.ts';
import { openRuns, probesOfRun, runKey, withoutOpenRunIndex } from './keys.ts';
import { probeFromItem, runFromItem, type ProbeJob, type Run, type Verdict } from './entity.ts';

/** What a probe tells at present: still to send, sent and being read, or its verdict. */
export type ProbeState = 'WAITING' | 'READING' | Placement | 'SKIPPED';

export function probeState(job: ProbeJob): ProbeState {
  if (job.placement) return job.placement;
  if (job.state === 'SENT' || (job.state === 'FAILED' && job.unknownOutcome)) return 'READING';
  if (job.state === 'FAILED' || job.state === 'CANCELLED') return 'SKIPPED';
  return 'WAITING';
}

/** Counts the probes with a verdict: sampleSize is inbox + spam + missing; skipped probes say nothing about placement. */
export function rollup(domainId: string, sampledAt: string, probes: { provider: string; placement: ProbeState }[]): PlacementRollup {
  const out: PlacementRollup = { domainId, sampledAt, sampleSize: 0, inbox: 0, spam: 0, missing: 0, byProvider: {} };
  const field = { INBOX: 'inbox', SPAM: 'spam', MISSING: 'missing' } as const;
  for (const p of probes) {
    const { placement } = p;
    if (placement !== 'INBOX' && placement !== 'SPAM' && placement !== 'MISSING') continue;
    const k = field[placement];
    const provider = (out.byProvider[p.provider] ??= { inbox: 0, spam: 0, missing: 0 });
    provider[k]++;
    out[k]++;
    out.sampleSize++;
  }
  return out;
}

const MINUTE = 60_000;
/** The first look at a seed, after the sample was sent (engine time): providers file within seconds, greylisting within minutes. */
export const READ_DELAY_MS = 5 * MINUTE;
/** Between two looks at a seed that did not show the sample yet. */
export const READ_EVERY_MS = 5 * MINUTE;
/** Not found this long after the send, in at least MIN_READS looks: missing. */
export const MISSING_AFTER_MS = 30 * MINUTE;
export const MIN_READS = 3;
/** A seed that cannot be read for this long is left out of the sample rather than counted missing. */
export const UNREADABLE_AFTER_MS = 24 * 60 * MINUTE;
/** A run whose samples have not all gone out after this long ends; what did not go is left out. */
export const RUN_TIMEOUT_MS = 48 * 60 * MINUTE;
/** Seeds read at once; each read may wait on its IMAP server (READ_TIMEOUT_MS). */
const READ_CONCURRENCY = 8;
const READ_TIMEOUT_MS = 15_000;

/**
 * One placement tick (on the dispatcher's schedule): every open run moves
 * on. Sent probes whose seed is due a look are read; a run whose probes all
 * have a verdict is finished and its rollup stored on the domain.
 */
export async function tick(deps: Deps): Promise<{ read: number; completed: number }> {
  let read = 0;
  let completed = 0;
  for (const run of (await queryAll(deps.store, openRuns())).map(runFromItem)) {
    const r = await advance(deps, run);
    read += r.read;
    if (r.completed) completed++;
  }
  return { read, completed };
}

async function advance(deps: Deps, run: Run): Promise<{ read: number; completed: boolean }> {
  const now = deps.clock.now();
  const probes = (await queryAll(deps.store, probesOfRun(run.id))).map(probeFromItem);
  let read = 0;
  const timedOut = now - run.startedAtMs > RUN_TIMEOUT_MS;
  await eachLimited(probes, READ_CONCURRENCY, async (probe, i) => {
    const state = probeState(probe);
    if (state === 'READING') {
      const verdict = await look(deps, probe, now);
      if (verdict) read++;
      probes[i] = verdict ? { ...probe, ...verdict } : probe;
    } else if (state === 'SKIPPED' && !probe.placement) {
      const reason =
        probe.state === 'CANCELLED' ? (probe.reason ?? 'cancelled') : `The sample could not be sent (${probe.lastError ?? 'failed'}).`;
      probes[i] = { ...probe, ...(await settle(deps, probe, 'SKIPPED', reason)) };
    } else if (state === 'WAITING' && timedOut && ['SCHEDULED', 'QUEUED', 'PARKED'].includes(probe.state)) {
      // Conditional on the state it had: a sender claiming it at this moment wins, or this does. A CLAIMED
      // probe is settled by the sender or, if the sender died, by the dispatcher.
      await move(deps, probe, 'CANCELLED', { set: { reason: 'the sample was not sent within two days' } });
    }
  });
  if (probes.some((p) => !p.placement)) return { read, completed: false };
  return { read, completed: await complete(deps, run, probes) };
}

/** Writes a probe's verdict once (a second tick reading the same probe writes nothing). */
async function settle(deps: Pick<Deps, 'store'>, probe: ProbeJob, placement: Verdict, reason?: string): Promise<Partial<ProbeJob>> {
  const set = { placement, ...(reason ? { placementReason: reason } : {}) };
  try {
    await deps.store.update(jobKey(probe.id), { set, if: { attr: 'placement', exists: false } });
  } catch (err) {
    if ((err as Error).name !== 'ConditionFailedError') throw err;
  }
  return set;
}

/**
 * A look at the seed inbox a probe went to. Found in the inbox or spam: that
 * is the verdict. Not found: looked at again later, and missing once enough
 * time and looks have passed. The seed cannot be read: tried again, and left
 * out of the sample after a day rather than counted missing. Returns the
 * verdict written, if any.
 */
async function look(deps: Deps, probe: ProbeJob, now: number): Promise<Partial<ProbeJob> | undefined> {
  const sentAt = probe.sentAtMs ?? probe.claimedAt ?? 0;
  if (now < sentAt + READ_DELAY_MS) return undefined;
  if (probe.lastReadAt !== undefined && now < probe.lastReadAt + READ_EVERY_MS) return undefined;
  // The look is booked before the IMAP login, so two ticks running at once never sign in to one seed together.
  try {
    await deps.store.update(jobKey(probe.id), {
      set: { lastReadAt: now },
      if: probe.lastReadAt === undefined ? { attr: 'lastReadAt', exists: false } : { attr: 'lastReadAt', op: '=', value: probe.lastReadAt },
    });
  } catch (err) {
    if ((err as Error).name === 'ConditionFailedError') return undefined;
    throw err;
  }
  const row = await deps.store.get(seedKey(probe.seedId));
  if (!row) return settle(deps, probe, 'SKIPPED', 'The seed inbox was removed before it was read.');
  const seed = seedFromItem(row);
  const reads = (probe.reads ?? 0) + 1;
  let found: Placement;
  try {
    found = await deps.mailReader.placementOf(
      { ...(await seeds.loginOf(deps, seed)), timeoutMs: READ_TIMEOUT_MS },
      probe.messageId ?? '',
      seed.spamFolder,
    );
  } catch (err) {
    deps.log.warn('seed inbox could not be read', { seedId: seed.id, runId: probe.runId, err });
    if (now - sentAt > UNREADABLE_AFTER_MS) return settle(deps, probe, 'SKIPPED', 'The seed inbox could not be read for a day.');
    await deps.store.update(jobKey(probe.id), { set: { lastError: 'The seed inbox could not be read; trying again.' } });
    return undefined;
  }
  if (found !== 'MISSING') return settle(deps, probe, found);
  if (reads >= MIN_READS && now - sentAt >= MISSING_AFTER_MS) {
    // An unknown SMTP outcome that never arrived may simply not have been sent: it says nothing about placement.
    return probe.unknownOutcome
      ? settle(deps, probe, 'SKIPPED', 'The send was interrupted and the sample never arrived.')
      : settle(deps, probe, 'MISSING', 'Not in the inbox or the spam folder.');
  }
  await deps.store.update(jobKey(probe.id), { set: { reads } });
  return undefined;
}

/** Finishes a run: its rollup on the run and, when it measured anything, on the domain; the domain is free for the next run. */
async function complete(deps: Deps, run: Run, probes: ProbeJob[]): Promise<boolean> {
  // Called once every probe has its verdict.
  const result = rollup(
    run.domainId,
    run.startedAt,
    probes.flatMap((p) => (p.placement ? [{ provider: p.provider, placement: p.placement }] : [])),
  );
  const completedAt = new Date(deps.wallClock.now()).toISOString();
  try {
    await deps.store.transact([
      {
        update: runKey(run.id),
        change: {
          set: { status: 'COMPLETE', completedAt, rollup: result },
          remove: withoutOpenRunIndex(),
          if: { attr: 'status', op: '=', value: 'OPEN' },
        },
      },
      {
        update: domainKey(run.domainId),
        // A run that measured nothing (every probe skipped) leaves the last real rollup in place.
        change: {
          ...(result.sampleSize ? { set: { placementSample: result } } : {}),
          remove: ['placementRunId'],
          if: { attr: 'placementRunId', op: '=', value: run.id },
        },
      },
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError) return false;
    throw err;
  }
  deps.log.info('placement run complete', {
    runId: run.id,
    domainId: run.domainId,
    sampleSize: result.sampleSize,
    inbox: result.inbox,
    spam: result.spam,
    missing: result.missing,
  });
  return true;
}
