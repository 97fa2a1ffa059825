/**
 * Seed-inbox placement (docs/placement.md). A run sends one sample email to
 * each seed inbox from the domain's mailboxes, through the ordinary send path
 * (the queue, the cadence, the daily cap, every guardrail), then reads each
 * seed over IMAP: in the inbox, in spam, or missing. The finished run's
 * rollup is kept on the domain for GET /v1/domains/{id}/placement-sample.
 * A sample is never a campaign send: no campaign, lead or breaker sees it.
 */
import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { renderCopy } from '../copy/placeholders.ts';
import { campaignKey } from '../campaign/keys.ts';
import { domainKey } from '../domain/keys.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import * as seeds from '../seed/index.ts';
import { createJobOps, foldCounters, newJob } from '../sending/jobs.ts';
import { parse } from '../validate.ts';
import { probeJobId, probesOfRun, runProbes, runsOfDomain } from './keys.ts';
import { PROBE_KIND } from './probe.ts';
import { probeFromItem, runFromItem, runToItem, type ProbeCopy, type ProbeJob, type Run } from './entity.ts';
import { fromItem as campaignFromItem } from '../campaign/entity.ts';
import { fromItem as domainFromItem, hasMailingAddress } from '../domain/entity.ts';
import { fromItem as mailboxFromItem } from '../mailbox/entity.ts';
import { StartSample } from './placement.schema.ts';
import { probeState } from './reader.ts';
import type { PlacementRunView, PlacementSampleView } from './placement.view.ts';
import { mailboxesOfDomain } from '../mailbox/keys.ts';
import { canSend, hasCredentials } from '../mailbox/entity.ts';

/** Seeds sampled per run: the run and its probes are written in one transaction. */
export const MAX_SEEDS = 50;

/** The sample's copy when the caller names none: plain, short and typical of a first cold email. */
export const DEFAULT_COPY: ProbeCopy = {
  subject: '{Quick question|A quick question}',
  body: 'Hi {{firstName}},\n\nI am reaching out to ask whether a short call next week would be useful to you. If it is, just reply and suggest a time.\n\nBest regards,\n{{senderName}}',
};

async function copyFor(
  deps: Pick<Deps, 'store' | 'random'>,
  input: z.output<typeof StartSample>,
): Promise<ProbeCopy & { campaignId?: string }> {
  let copy: ProbeCopy & { campaignId?: string } = DEFAULT_COPY;
  if (input.campaignId) {
    const row = await deps.store.get(campaignKey(input.campaignId));
    if (!row) throw new ValidationError(`campaignId: there is no campaign ${input.campaignId}.`);
    const campaign = campaignFromItem(row);
    const { subject, template } = campaign;
    if (!subject?.trim() || !template?.trim()) {
      throw new ValidationError('campaignId: the campaign has no first email (subject and template) to sample.');
    }
    copy = {
      subject,
      body: template,
      unsubscribeUrlTemplate: campaign.unsubscribeUrlTemplate ?? null,
      campaignId: input.campaignId,
    };
  } else if (input.subject !== undefined && input.body !== undefined) {
    copy = { subject: input.subject, body: input.body };
  }
  for (const [field, text] of [
    ['subject', copy.subject],
    ['body', copy.body],
  ] as const) {
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
  const row = await deps.store.get(domainKey(domainId));
  if (!row) throw new NotFoundError(`There is no domain ${domainId}.`);
  const domain = domainFromItem(row);
  const input = { ...parse(StartSample, body ?? {}), domainId };
  const name = domain.domainName;
  if (!hasMailingAddress(domain)) {
    throw new ValidationError(
      `${name} has no mailing address, and every email carries it in its footer: add one before sampling placement.`,
    );
  }
  const copy = await copyFor(deps, input);
  if (!copy.unsubscribeUrlTemplate?.trim() && !deps.config.publicBaseUrl.trim()) {
    throw new ValidationError(
      'There is no unsubscribe link for the sample: set PUBLIC_BASE_URL, or sample a campaign that has an unsubscribeUrlTemplate.',
    );
  }
  const mailboxes = (await queryAll(deps.store, mailboxesOfDomain(input.domainId)))
    .map(mailboxFromItem)
    .filter((m) => canSend(m) && hasCredentials(m) && m.smtpHost);
  if (!mailboxes.length)
    throw new ValidationError(`No mailbox at ${name} can send: connect one, or resume a paused one, before sampling placement.`);
  const allSeeds = await seeds.all(deps);
  if (!allSeeds.length) throw new ValidationError('There are no seed inboxes to sample: add some with POST /v1/seed-inboxes first.');
  const sampled = allSeeds.slice(0, MAX_SEEDS);

  const id = newId();
  const now = deps.clock.now();
  const startedAt = new Date(deps.wallClock.now()).toISOString();
  const run: Run = {
    id,
    domainId: input.domainId,
    status: 'OPEN',
    copy: { subject: copy.subject, body: copy.body, unsubscribeUrlTemplate: copy.unsubscribeUrlTemplate ?? null },
    campaignId: copy.campaignId ?? null,
    startedAt,
    startedAtMs: now,
  };
  const probes = sampled.map((seed, i): Item =>
    newJob(
      {
        id: probeJobId(id, seed.id),
        kind: PROBE_KIND,
        group: runProbes(id),
        dueAt: now,
        mailboxId: mailboxes[i % mailboxes.length]!.id,
        fields: { runId: id, domainId: input.domainId, seedId: seed.id, seedEmail: seed.email, provider: seed.provider },
      },
      now,
    ),
  );
  const ops: TransactOp[] = [
    // One run per domain at a time: the domain holds the open run's id.
    {
      update: domainKey(input.domainId),
      change: { set: { placementRunId: id }, if: { and: [{ itemExists: true }, { attr: 'placementRunId', exists: false }] } },
    },
    { put: runToItem(run), if: { itemExists: false } },
    ...probes.flatMap((p) => createJobOps(p, now)),
  ];
  try {
    await deps.store.transact(foldCounters(ops));
  } catch (err) {
    if (err instanceof TransactionFailedError) {
      throw new ConflictError(
        `A placement sample of ${name} is still running: follow it at GET /v1/domains/${input.domainId}/placement-runs.`,
      );
    }
    throw err;
  }
  deps.log.info('placement run started', { runId: id, domainId: input.domainId, seeds: probes.length, mailboxes: mailboxes.length });
  return toRun(run, probes.map(probeFromItem));
}

/** A run as the API shows it: its state, and each seed's. */
function toRun(run: Run, probes: ProbeJob[]): PlacementRunView {
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
    probes: probes.map((p) => {
      const state = probeState(p);
      return {
        seedId: p.seedId,
        seedEmail: p.seedEmail,
        provider: p.provider,
        mailboxId: p.mailboxId ?? null,
        state,
        sentAt: p.sentAt ?? null,
        reason: p.placementReason ?? (state === 'SKIPPED' ? (p.reason ?? p.lastError ?? 'not sent') : (p.lastError ?? null)),
      };
    }),
    rollup: run.rollup ?? null,
  };
}

/** GET /v1/domains/{id}/placement-sample: the latest finished run's rollup (zeros and a null sampledAt before the first). */
export async function sample(deps: Pick<Deps, 'store'>, domainId: string): Promise<PlacementSampleView> {
  const row = await deps.store.get(domainKey(domainId));
  if (!row) throw new NotFoundError(`There is no domain ${domainId}.`);
  return domainFromItem(row).placementSample ?? { domainId, sampledAt: null, sampleSize: 0, inbox: 0, spam: 0, missing: 0, byProvider: {} };
}

/** GET /v1/domains/{id}/placement-runs: the domain's latest runs, newest first, with each seed's progress. */
export async function runs(deps: Pick<Deps, 'store'>, domainId: string, limit = 10) {
  if (!(await deps.store.get(domainKey(domainId)))) throw new NotFoundError(`There is no domain ${domainId}.`);
  const page = await deps.store.query({ ...runsOfDomain(domainId), reverse: true, limit });
  return Promise.all(
    page.items.map(runFromItem).map(async (run) => toRun(run, (await queryAll(deps.store, probesOfRun(run.id))).map(probeFromItem))),
  );
}
