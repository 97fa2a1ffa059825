/**
 * No lead waits without a job that will move it. A lead of a launched
 * campaign whose status is not final (NEW, CONTACTED) and that has no open
 * job is a defect, whatever caused it (a crash between two writes, a job
 * that failed for good, data older than a fix): the dispatcher's sweep
 * finds such leads, logs and counts each, and plans what the sequence says
 * is next. docs/sending.md, "No lead left waiting".
 */
import type { Deps } from '../deps.ts';
import { eachLimited, queryAll } from '../collections.ts';
import { allCampaigns } from '../campaign/keys.ts';
import { fromItem as campaignFromItem, type Campaign } from '../campaign/entity.ts';
import { leadKey, leadsOfCampaign } from '../lead/keys.ts';
import { fromItem as leadFromItem, type Lead } from '../lead/entity.ts';
import { sendable, transition } from '../lead/sequence.ts';
import { createJob, move } from './jobs.ts';
import { followUpAt, sendWindow } from './due.ts';
import { campaignStepOf, type Job } from './job.entity.ts';
import { healCursorKey, isPlanning, jobId, jobKey } from './keys.ts';
import { planNewLead } from './first-emails.ts';
import { takeAsSent } from './campaign-send.ts';

/** Leads of one campaign looked at per sweep: the work of a tick stays bounded whatever the campaign's size. */
export const HEAL_PAGE = 200;
/** Wall ms between sweeps in one process (the first tick of a process sweeps at once). */
export const HEAL_EVERY_MS = 3 * 60_000;
/** A NEW lead stored this recently (wall ms) may still be on its way to its first job: not a defect yet. */
const FRESH_MS = 2 * 60_000;

/** Job states that will move a lead on by themselves. */
const OPEN = new Set(['SCHEDULED', 'QUEUED', 'CLAIMED']);

const lastSweep = new WeakMap<object, number>();

/**
 * One sweep, at most every HEAL_EVERY_MS of wall time per process (or now,
 * with `force`): a page of each ACTIVE campaign's leads (the campaign's lead
 * index, from where the last sweep stopped, so every lead is looked at in
 * turn), each waiting lead read with its jobs in one consistent batch.
 * Returns how many leads were healed.
 */
export async function healWaitingLeads(deps: Deps, force = false): Promise<number> {
  const wallNow = deps.wallClock.now();
  if (!force && wallNow - (lastSweep.get(deps.store) ?? -Infinity) < HEAL_EVERY_MS) return 0;
  lastSweep.set(deps.store, wallNow);
  // Campaigns still being planned are skipped: their NEW leads are about to get their first jobs.
  // and one launched or resumed a moment ago may still be planning its first chunk.
  const launched = (await queryAll(deps.store, allCampaigns()))
    .filter((item) => !isPlanning(item))
    .map(campaignFromItem)
    .filter((c) => c.status === 'ACTIVE' && !recent(c.updatedAt, wallNow));
  let healed = 0;
  for (const campaign of launched) healed += await sweepCampaign(deps, campaign);
  return healed;
}

/** A page of one campaign's leads, from the stored cursor; the cursor moves on (and starts over after the last page). */
async function sweepCampaign(deps: Deps, campaign: Campaign): Promise<number> {
  const cursor = (await deps.store.get(healCursorKey(campaign.id)))?.cursor;
  const page = await deps.store.query({
    ...leadsOfCampaign(campaign.id),
    limit: HEAL_PAGE,
    cursor: typeof cursor === 'string' ? cursor : undefined,
  });
  await deps.store.put({ ...healCursorKey(campaign.id), cursor: page.cursor ?? null });
  const wallNow = deps.wallClock.now();
  const waiting = page.items.map(leadFromItem).filter((l) => sendable(l) && !(l.status === 'NEW' && recent(l.createdAt, wallNow)));
  if (!waiting.length) return 0;
  // Each waiting lead with every job of its sequence, in one consistent batch: the record of a send moves the job,
  // the lead and the next job in one transaction, so this read never sees a send half recorded.
  const total = 1 + campaign.steps.length;
  const steps = Array.from({ length: total }, (_, s) => s);
  const items = await deps.store.batchGet(waiting.flatMap((l) => [leadKey(l.id), ...steps.map((s) => jobKey(jobId(l.id, s)))]));
  const byPk = new Map<string, typeof items>();
  for (const item of items) byPk.set(item.pk, [...(byPk.get(item.pk) ?? []), item]);
  let healed = 0;
  await eachLimited(waiting, 4, async (read) => {
    const row = byPk.get(leadKey(read.id).pk)?.find((i) => i.sk === leadKey(read.id).sk);
    const jobs = steps.flatMap((s) => byPk.get(jobKey(jobId(read.id, s)).pk) ?? []).map(campaignStepOf);
    if (row && (await healLead(deps, campaign, leadFromItem(row), new Map(jobs.map((j) => [j.step, j]))))) healed++;
  });
  return healed;
}

/** Whether an ISO time (wall clock) is less than FRESH_MS ago; a missing one is not. */
const recent = (iso: string | undefined, wallNow: number) => Date.parse(iso ?? '') > wallNow - FRESH_MS;

/**
 * What the sequence says is next for a lead with no open job: a step to plan, the end, a parked job to put back,
 * a send of unknown outcome that older versions ended FAILED to take as sent, or nothing to do.
 */
type Next = { step: number } | { unknown: Job } | 'complete' | 'unpark' | 'none';

/**
 * Versions before unknown outcomes were taken as sent ended such a job FAILED ("outcome unknown", never resent),
 * with its Message-ID: the email most likely went, so it is taken as sent now, and the lead moves on in its thread.
 */
const failedUnknown = (job: Job): boolean =>
  job.state === 'FAILED' && Boolean(job.messageId) && /^outcome unknown/.test(job.lastError ?? '');

/** A lead that waits with no open job is moved on; logged and counted only when this sweep did it (a planner or a send may be first). */
async function healLead(deps: Deps, campaign: Campaign, lead: Lead, jobs: Map<number, Job>): Promise<boolean> {
  if (!sendable(lead)) return false;
  const next = nextFor(lead, jobs, 1 + campaign.steps.length);
  if (next === 'none' || !(await apply(deps, campaign, lead, jobs, next))) return false;
  deps.log.warn('a lead was waiting with no job to move it; moved it on', {
    leadId: lead.id,
    campaignId: campaign.id,
    status: lead.status,
    stepsSent: lead.stepsSent ?? 0,
    next: typeof next === 'string' ? next : 'unknown' in next ? `job ${next.unknown.id} taken as sent` : `step ${next.step}`,
  });
  deps.metrics.count('LeadsHealed');
  return true;
}

/**
 * Steps before `stepsSent` went; from there on, a step whose job ended
 * without sending (failed or cancelled for good) is passed over, as a sent
 * job is never sent again, and the first step without a job is next. A
 * follow-up needs a first email that went (its mailbox and thread): without
 * one, or past the last step, the sequence has ended.
 */
export function nextFor(lead: Lead, jobs: Map<number, Job>, total: number): Next {
  const all = [...jobs.values()];
  if (all.some((j) => OPEN.has(j.state))) return 'none';
  if (all.some((j) => j.state === 'PARKED')) return 'unpark';
  for (let step = lead.stepsSent ?? 0; step < total; step++) {
    const job = jobs.get(step);
    // Sent but not on the lead: only a send still being recorded looks like this; left to its record.
    if (job?.state === 'SENT') return 'none';
    if (job && failedUnknown(job)) return { unknown: job };
    if (job) continue;
    return step > 0 && !lead.mailboxId ? 'complete' : { step };
  }
  return 'complete';
}

async function apply(deps: Deps, campaign: Campaign, lead: Lead, jobs: Map<number, Job>, next: Exclude<Next, 'none'>): Promise<boolean> {
  const now = deps.clock.now();
  const open = sendWindow(campaign.schedule, lead.customFields);
  if (next === 'complete') return transition(deps, lead, 'COMPLETED');
  if (next === 'unpark') {
    // The campaign is running: a job parked while it was paused and missed by the launch goes back on the plan.
    let moved = false;
    for (const job of jobs.values())
      if (job.state === 'PARKED' && (await move(deps, job, 'SCHEDULED', { due: { at: job.dueAt, now, open } }))) moved = true;
    return moved;
  }
  if ('unknown' in next) return takeAsSent(deps, next.unknown);
  if (next.step === 0) return planNewLead(deps, campaign, lead);
  // A follow-up waits its waitDays from the last send, from the lead's pinned mailbox, as a send's record plans it.
  const waitDays = campaign.steps[next.step - 1]?.waitDays ?? 0;
  const lastSent = Date.parse(lead.lastSentAt ?? '') || now;
  return createJob(
    deps,
    { leadId: lead.id, campaignId: campaign.id, step: next.step, dueAt: followUpAt(lastSent, waitDays), open, mailboxId: lead.mailboxId },
    now,
  );
}
