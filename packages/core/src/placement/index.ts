/**
 * Seed-inbox placement (docs/placement.md). A run sends one sample email to
 * each seed inbox from the domain's mailboxes, through the ordinary send path
 * (the queue, the cadence, the daily cap, every guardrail), then reads each
 * seed over IMAP: in the inbox, in spam, or missing. The finished run's
 * rollup is kept on the domain for GET /v1/domains/{id}/placement-sample.
 * A sample is never a campaign send: no campaign, lead or breaker sees it.
 */
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { eachLimited, queryAll } from '../collections.ts';
import { ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { renderCopy } from '../copy/placeholders.ts';
import { campaignKey } from '../campaign/keys.ts';
import { domainKey } from '../domain/keys.ts';
import { domainMailboxes } from '../mailbox/keys.ts';
import type { Placement } from '../ports/mail-reader.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import * as seeds from '../seed/index.ts';
import { seedKey } from '../seed/keys.ts';
import { dueIndex, jobKey, queueCounterKey, stateCounter } from '../sending/keys.ts';
import { foldCounters, move } from '../sending/jobs.ts';
import { parse } from '../validate.ts';
import { domainRuns, OPEN_RUNS, probeJobId, runKey, runProbes } from './keys.ts';
import type { ProbeCopy } from './probe.ts';

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
/** Seeds sampled per run: the run and its probes are written in one transaction. */
export const MAX_SEEDS = 50;

const SENDING = new Set(['ACTIVE', 'WARMING']);

/** The sample's copy when the caller names none: plain, short and typical of a first cold email. */
export const DEFAULT_COPY: ProbeCopy = {
  subject: '{Quick question|A quick question}',
  body: 'Hi {{firstName}},\n\nI am reaching out to ask whether a short call next week would be useful to you. If it is, just reply and suggest a time.\n\nBest regards,\n{{senderName}}',
};

export const StartSample = z
  .strictObject({
    campaignId: z.string({ error: 'must be a string' }).min(1, { error: 'cannot be blank' }).optional(),
    subject: z.string({ error: 'must be a string' }).trim().min(1, { error: 'cannot be blank' }).max(998).optional(),
    body: z.string({ error: 'must be a string' }).trim().min(1, { error: 'cannot be blank' }).max(100_000).optional(),
  })
  .refine((v) => !v.campaignId || (v.subject === undefined && v.body === undefined), { error: 'Give a campaignId or a subject and body, not both.' })
  .refine((v) => (v.subject === undefined) === (v.body === undefined), { error: 'Give a subject and a body together.' });

export type PlacementCounts = { inbox: number; spam: number; missing: number };
export interface PlacementRollup extends PlacementCounts {
  domainId: string;
  sampledAt: string | null;
  sampleSize: number;
  byProvider: Record<string, PlacementCounts>;
}

/** What a probe tells at present: still to send, sent and being read, or its verdict. */
type ProbeState = 'WAITING' | 'READING' | Placement | 'SKIPPED';

function probeState(job: Item): ProbeState {
  if (job.placement) return job.placement as ProbeState;
  if (job.state === 'SENT' || (job.state === 'FAILED' && job.unknownOutcome)) return 'READING';
  if (job.state === 'FAILED' || job.state === 'CANCELLED') return 'SKIPPED';
  return 'WAITING';
}

async function copyFor(deps: Pick<Deps, 'store' | 'random'>, input: z.output<typeof StartSample>): Promise<ProbeCopy & { campaignId?: string }> {
  let copy: ProbeCopy & { campaignId?: string } = DEFAULT_COPY;
  if (input.campaignId) {
    const campaign = await deps.store.get(campaignKey(input.campaignId));
    if (!campaign) throw new ValidationError(`campaignId: there is no campaign ${input.campaignId}.`);
    if (!String(campaign.subject ?? '').trim() || !String(campaign.template ?? '').trim()) {
      throw new ValidationError('campaignId: the campaign has no first email (subject and template) to sample.');
    }
    copy = {
      subject: String(campaign.subject),
      body: String(campaign.template),
      unsubscribeUrlTemplate: (campaign.unsubscribeUrlTemplate as string | null | undefined) ?? null,
      campaignId: input.campaignId,
    };
  } else if (input.subject !== undefined && input.body !== undefined) {
    copy = { subject: input.subject, body: input.body };
  }
  for (const [field, text] of [['subject', copy.subject], ['body', copy.body]] as const) {
    try {
      renderCopy(text, {}, undefined, deps.random);
    } catch (err) {
      throw new ValidationError(`${input.campaignId ? 'campaignId' : field}: ${(err as Error).message}`);
    }
  }
  return copy;
}

/**
 * POST /v1/domains/{id}/placement-sample: starts a run. Refused (422) when
 * nothing could be sent: no seed inboxes, no mailbox of the domain that can
 * send, no mailing address (guardrail 1) or no unsubscribe link; 409 while
 * the domain's previous run is still going. Each seed gets one probe, from
 * the domain's sending mailboxes in turn, due now: the cadence spaces them.
 */
export async function start(deps: Deps, domainId: string, body: unknown) {
  // An unknown domain is 404 whatever the body says.
  const domain = await deps.store.get(domainKey(domainId));
  if (!domain) throw new NotFoundError(`There is no domain ${domainId}.`);
  const input = { ...parse(StartSample, body ?? {}), domainId };
  const name = String(domain.domainName);
  if (!String(domain.mailingAddress ?? '').trim()) {
    throw new ValidationError(`${name} has no mailing address, and every email carries it in its footer: add one before sampling placement.`);
  }
  const copy = await copyFor(deps, input);
  if (!copy.unsubscribeUrlTemplate?.trim() && !deps.config.publicBaseUrl.trim()) {
    throw new ValidationError('There is no unsubscribe link for the sample: set PUBLIC_BASE_URL, or sample a campaign that has an unsubscribeUrlTemplate.');
  }
  const mailboxes = (await queryAll(deps.store, { index: 'gsi2', pk: domainMailboxes(input.domainId) })).filter(
    (m) => SENDING.has(String(m.status)) && m.auth === 'password' && m.smtpHost,
  );
  if (!mailboxes.length) throw new ValidationError(`No mailbox at ${name} can send: connect one, or resume a paused one, before sampling placement.`);
  const allSeeds = await seeds.all(deps);
  if (!allSeeds.length) throw new ValidationError('There are no seed inboxes to sample: add some with POST /v1/seed-inboxes first.');
  const sampled = allSeeds.slice(0, MAX_SEEDS);

  const id = newId();
  const now = deps.clock.now();
  const startedAt = new Date(deps.wallClock.now()).toISOString();
  const run: Item = {
    ...runKey(id),
    gsi2pk: domainRuns(input.domainId),
    gsi2sk: id,
    gsi3pk: OPEN_RUNS,
    gsi3sk: id,
    id,
    domainId: input.domainId,
    status: 'OPEN',
    copy: { subject: copy.subject, body: copy.body, unsubscribeUrlTemplate: copy.unsubscribeUrlTemplate ?? null },
    campaignId: copy.campaignId ?? null,
    startedAt,
    startedAtMs: now,
  };
  const probes = sampled.map((seed, i): Item => {
    const jobId = probeJobId(id, String(seed.id));
    return {
      ...jobKey(jobId),
      ...dueIndex(jobId, now),
      gsi2pk: runProbes(id),
      gsi2sk: jobId,
      id: jobId,
      kind: 'probe',
      runId: id,
      domainId: input.domainId,
      seedId: seed.id,
      seedEmail: seed.email,
      provider: seed.provider,
      mailboxId: mailboxes[i % mailboxes.length]!.id,
      dueAt: now,
      state: 'SCHEDULED',
      attempts: 0,
      createdAt: startedAt,
    };
  });
  const ops: TransactOp[] = [
    // One run per domain at a time: the domain holds the open run's id.
    { update: domainKey(input.domainId), change: { set: { placementRunId: id }, if: { and: [{ itemExists: true }, { attr: 'placementRunId', exists: false }] } } },
    { put: run, if: { itemExists: false } },
    ...probes.flatMap((p): TransactOp[] => [
      { put: p, if: { itemExists: false } },
      { update: queueCounterKey, change: { add: { [stateCounter('SCHEDULED')]: 1 } } },
    ]),
  ];
  try {
    await deps.store.transact(foldCounters(ops));
  } catch (err) {
    if (err instanceof TransactionFailedError) {
      throw new ConflictError(`A placement sample of ${name} is still running: follow it at GET /v1/domains/${input.domainId}/placement-runs.`);
    }
    throw err;
  }
  deps.log.info('placement run started', { runId: id, domainId: input.domainId, seeds: probes.length, mailboxes: mailboxes.length });
  return toRun(run, probes);
}

/** A run as the API shows it: its state, and each seed's. */
function toRun(run: Item, probes: Item[]) {
  const states = probes.map(probeState);
  const status = run.status === 'COMPLETE' ? 'COMPLETE' : states.includes('WAITING') ? 'SENDING' : 'READING';
  return {
    id: run.id,
    domainId: run.domainId,
    status,
    campaignId: run.campaignId ?? null,
    startedAt: run.startedAt,
    completedAt: run.completedAt ?? null,
    seeds: probes.length,
    sent: states.filter((s) => s !== 'WAITING' && s !== 'SKIPPED').length,
    probes: probes.map((p, i) => ({
      seedId: p.seedId,
      seedEmail: p.seedEmail,
      provider: p.provider,
      mailboxId: p.mailboxId ?? null,
      state: states[i],
      sentAt: p.sentAt ?? null,
      reason: p.placementReason ?? (states[i] === 'SKIPPED' ? String(p.reason ?? p.lastError ?? 'not sent') : p.lastError ?? null),
    })),
    rollup: (run.rollup as PlacementRollup | undefined) ?? null,
  };
}

/** GET /v1/domains/{id}/placement-sample: the latest finished run's rollup (zeros and a null sampledAt before the first). */
export async function sample(deps: Pick<Deps, 'store'>, domainId: string): Promise<PlacementRollup> {
  const domain = await deps.store.get(domainKey(domainId));
  if (!domain) throw new NotFoundError(`There is no domain ${domainId}.`);
  return (
    (domain.placementSample as PlacementRollup | undefined) ?? { domainId, sampledAt: null, sampleSize: 0, inbox: 0, spam: 0, missing: 0, byProvider: {} }
  );
}

/** GET /v1/domains/{id}/placement-runs: the domain's latest runs, newest first, with each seed's progress. */
export async function runs(deps: Pick<Deps, 'store'>, domainId: string, limit = 10) {
  if (!(await deps.store.get(domainKey(domainId)))) throw new NotFoundError(`There is no domain ${domainId}.`);
  const page = await deps.store.query({ index: 'gsi2', pk: domainRuns(domainId), reverse: true, limit });
  return Promise.all(page.items.map(async (run) => toRun(run, await queryAll(deps.store, { index: 'gsi2', pk: runProbes(String(run.id)) }))));
}

/** Counts the probes with a verdict: sampleSize is inbox + spam + missing; skipped probes say nothing about placement. */
export function rollup(domainId: string, sampledAt: string, probes: { provider: string; placement: ProbeState }[]): PlacementRollup {
  const out: PlacementRollup = { domainId, sampledAt, sampleSize: 0, inbox: 0, spam: 0, missing: 0, byProvider: {} };
  const field = { INBOX: 'inbox', SPAM: 'spam', MISSING: 'missing' } as const;
  for (const p of probes) {
    if (!(p.placement in field)) continue;
    const k = field[p.placement as Placement];
    const provider = (out.byProvider[p.provider] ??= { inbox: 0, spam: 0, missing: 0 });
    provider[k]++;
    out[k]++;
    out.sampleSize++;
  }
  return out;
}

/**
 * One placement tick (on the dispatcher's schedule): every open run moves
 * on. Sent probes whose seed is due a look are read; a run whose probes all
 * have a verdict is finished and its rollup stored on the domain.
 */
export async function tick(deps: Deps): Promise<{ read: number; completed: number }> {
  let read = 0;
  let completed = 0;
  for (const run of await queryAll(deps.store, { index: 'gsi3', pk: OPEN_RUNS })) {
    const r = await advance(deps, run);
    read += r.read;
    if (r.completed) completed++;
  }
  return { read, completed };
}

async function advance(deps: Deps, run: Item): Promise<{ read: number; completed: boolean }> {
  const now = deps.clock.now();
  const probes = await queryAll(deps.store, { index: 'gsi2', pk: runProbes(String(run.id)) });
  let read = 0;
  const timedOut = now - Number(run.startedAtMs) > RUN_TIMEOUT_MS;
  await eachLimited(probes, READ_CONCURRENCY, async (probe, i) => {
    const state = probeState(probe);
    if (state === 'READING') {
      const verdict = await look(deps, probe, now);
      if (verdict) read++;
      probes[i] = verdict ? { ...probe, ...verdict } : probe;
    } else if (state === 'SKIPPED' && !probe.placement) {
      const reason = probe.state === 'CANCELLED' ? String(probe.reason ?? 'cancelled') : `The sample could not be sent (${String(probe.lastError ?? 'failed')}).`;
      probes[i] = { ...probe, ...(await settle(deps, probe, 'SKIPPED', reason)) };
    } else if (state === 'WAITING' && timedOut && ['SCHEDULED', 'QUEUED', 'PARKED'].includes(String(probe.state))) {
      // Conditional on the state it had: a sender claiming it at this moment wins, or this does. A CLAIMED
      // probe is settled by the sender or, if the sender died, by the dispatcher.
      await move(deps, probe, 'CANCELLED', { set: { reason: 'the sample was not sent within two days' } });
    }
  });
  if (probes.some((p) => !p.placement)) return { read, completed: false };
  return { read, completed: await complete(deps, run, probes) };
}

/** Writes a probe's verdict once (a second tick reading the same probe writes nothing). */
async function settle(deps: Pick<Deps, 'store'>, probe: Item, placement: ProbeState, reason?: string): Promise<Partial<Item>> {
  const set = { placement, ...(reason ? { placementReason: reason } : {}) };
  try {
    await deps.store.update(jobKey(String(probe.id)), { set, if: { attr: 'placement', exists: false } });
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
async function look(deps: Deps, probe: Item, now: number): Promise<Partial<Item> | undefined> {
  const sentAt = Number(probe.sentAtMs ?? probe.claimedAt ?? 0);
  if (now < sentAt + READ_DELAY_MS) return undefined;
  if (probe.lastReadAt !== undefined && now < Number(probe.lastReadAt) + READ_EVERY_MS) return undefined;
  // The look is booked before the IMAP login, so two ticks running at once never sign in to one seed together.
  try {
    await deps.store.update(jobKey(String(probe.id)), {
      set: { lastReadAt: now },
      if: probe.lastReadAt === undefined ? { attr: 'lastReadAt', exists: false } : { attr: 'lastReadAt', op: '=', value: probe.lastReadAt },
    });
  } catch (err) {
    if ((err as Error).name === 'ConditionFailedError') return undefined;
    throw err;
  }
  const seed = await deps.store.get(seedKey(String(probe.seedId)));
  if (!seed) return settle(deps, probe, 'SKIPPED', 'The seed inbox was removed before it was read.');
  const reads = Number(probe.reads ?? 0) + 1;
  let found: Placement;
  try {
    found = await deps.mailReader.placementOf({ ...(await seeds.loginOf(deps, seed)), timeoutMs: READ_TIMEOUT_MS }, String(probe.messageId), String(seed.spamFolder));
  } catch (err) {
    deps.log.warn('seed inbox could not be read', { seedId: seed.id, runId: probe.runId, err });
    if (now - sentAt > UNREADABLE_AFTER_MS) return settle(deps, probe, 'SKIPPED', 'The seed inbox could not be read for a day.');
    await deps.store.update(jobKey(String(probe.id)), { set: { lastError: 'The seed inbox could not be read; trying again.' } });
    return undefined;
  }
  if (found !== 'MISSING') return settle(deps, probe, found);
  if (reads >= MIN_READS && now - sentAt >= MISSING_AFTER_MS) {
    // An unknown SMTP outcome that never arrived may simply not have been sent: it says nothing about placement.
    return probe.unknownOutcome
      ? settle(deps, probe, 'SKIPPED', 'The send was interrupted and the sample never arrived.')
      : settle(deps, probe, 'MISSING', 'Not in the inbox or the spam folder.');
  }
  await deps.store.update(jobKey(String(probe.id)), { set: { reads } });
  return undefined;
}

/** Finishes a run: its rollup on the run and, when it measured anything, on the domain; the domain is free for the next run. */
async function complete(deps: Deps, run: Item, probes: Item[]): Promise<boolean> {
  const result = rollup(
    String(run.domainId),
    String(run.startedAt),
    probes.map((p) => ({ provider: String(p.provider), placement: p.placement as ProbeState })),
  );
  const completedAt = new Date(deps.wallClock.now()).toISOString();
  try {
    await deps.store.transact([
      {
        update: runKey(String(run.id)),
        change: { set: { status: 'COMPLETE', completedAt, rollup: result }, remove: ['gsi3pk', 'gsi3sk'], if: { attr: 'status', op: '=', value: 'OPEN' } },
      },
      {
        update: domainKey(String(run.domainId)),
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
  deps.log.info('placement run complete', { runId: run.id, domainId: run.domainId, sampleSize: result.sampleSize, inbox: result.inbox, spam: result.spam, missing: result.missing });
  return true;
}
