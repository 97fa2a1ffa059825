/**
 * First emails: the step-0 job of each NEW lead of a campaign, made on launch
 * and resume (a chunk at once, the rest by the dispatcher) and for a lead
 * added to a running campaign. Not to be confused with a kind's planner
 * (sending/job-kind.ts), which decides one send when its job is due.
 */
import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { campaignKey } from '../campaign/keys.ts';
import { fromItem as campaignFromItem, type Campaign } from '../campaign/entity.ts';
import { fromItem as leadFromItem, type Lead } from '../lead/entity.ts';
import { fromItem as jobFromItem } from './job.entity.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS } from './cadence.ts';
import { applyGroups, createJob, createJobOps, move } from './jobs.ts';
import { CHECKED_BEFORE_CLAIM, dueTime, sendWindow } from './due.ts';
import { jobsOfCampaign, planningIndex, withoutPlanningIndex } from './keys.ts';
import { leadsOfCampaign } from '../lead/keys.ts';
import { dailyCapOf, fromItem as mailboxFromItem, type Mailbox } from '../mailbox/entity.ts';

const DAY = 86_400_000;
/** A mailbox's first emails are planned this far apart: the cadence floor plus half the jitter. */
const SPACING = (CADENCE_FLOOR_SECONDS + JITTER_SECONDS / 2) * 1000;
/** Leads planned per chunk: launch plans the first chunk at once, the dispatcher the rest, a chunk a tick. */
export const PLAN_CHUNK = 500;

/**
 * First emails are spread over the campaign's picked mailboxes in turn
 * (rotation), each mailbox's share spaced by the cadence floor plus half the
 * jitter and by its daily cap. The sender still enforces both at send time;
 * this only keeps the queue from holding what cannot go yet.
 */
async function firstEmailPlan(deps: Pick<Deps, 'store' | 'clock'>, campaign: Pick<Campaign, 'mailboxIds'>, offset: number) {
  const ids = campaign.mailboxIds;
  const mailboxes = ids.length ? (await deps.store.batchGet(ids.map(mailboxKey))).map(mailboxFromItem) : [];
  const usable = ids.map((id) => mailboxes.find((m) => m.id === id)).filter((m): m is Mailbox => Boolean(m));
  const now = deps.clock.now();
  const spacing = SPACING;
  return (index: number) => {
    if (!usable.length) return { dueAt: now, mailboxId: undefined, domainId: undefined };
    const i = offset + index;
    const mailbox = usable[i % usable.length]!;
    const turn = Math.floor(i / usable.length);
    const cap = dailyCapOf(mailbox);
    const day = Math.floor(turn / cap);
    return { dueAt: now + day * DAY + (turn % cap) * spacing, mailboxId: mailbox.id, domainId: mailbox.domainId };
  };
}

/**
 * Plans one chunk of a campaign's NEW leads (jobs are keyed by lead and
 * step, so planning twice changes nothing). Returns whether leads remain.
 */
export async function planChunk(deps: Pick<Deps, 'store' | 'clock'>, campaignId: string): Promise<boolean> {
  const row = await deps.store.get(campaignKey(campaignId));
  const campaign = row && campaignFromItem(row);
  if (!campaign || campaign.status !== 'ACTIVE') return false;
  const page = await deps.store.query({ ...leadsOfCampaign(campaignId), limit: PLAN_CHUNK, cursor: campaign.planCursor || undefined });
  // Spacing continues across the chunks of one planning run, from the launch that started it.
  const offset = campaign.planOffset;
  const slot = await firstEmailPlan(deps, campaign, offset);
  const now = deps.clock.now();
  const fresh = page.items.filter((l) => l.status === 'NEW').map(leadFromItem);
  // Into each lead's window: a slot that falls outside it moves to the window's next opening, spaced from the
  // mailbox's other slots of this chunk, so leads of one zone do not all fall due at its opening only to be
  // spaced by the sender.
  const booked = new Map<string | undefined, number[]>();
  const planned = fresh.map((lead, i) => {
    const at = slot(i);
    const open = sendWindow(campaign.schedule, lead.customFields);
    if (!open) return { ...at, open };
    const mine = booked.get(at.mailboxId) ?? [];
    booked.set(at.mailboxId, mine);
    let dueAt = dueTime(at.dueAt, now, open);
    // Moved to an opening: after any slot of this mailbox it would come too close to.
    for (
      let clash = mine.find((t) => Math.abs(t - dueAt) < SPACING);
      clash !== undefined;
      clash = mine.find((t) => Math.abs(t - dueAt) < SPACING)
    ) {
      dueAt = dueTime(clash + SPACING, now, open);
    }
    mine.push(dueAt);
    return { ...at, dueAt, open };
  });
  // Many jobs to a write; a job planned already (a second planning) is refused by its own condition.
  const made = await applyGroups(
    deps,
    fresh.map((lead, i) => createJobOps({ leadId: lead.id, campaignId, step: 0, ...planned[i]! }, now)),
  );
  const count = made.filter(Boolean).length;
  const more = Boolean(page.cursor);
  await deps.store.update(campaignKey(campaignId), {
    set: more ? { planCursor: page.cursor } : { planCursor: null },
    add: { planned: count, planOffset: fresh.length },
    ...(more ? {} : { remove: withoutPlanningIndex() }),
  });
  return more;
}

/**
 * Launch and resume: parked jobs come back where they stopped (nothing is
 * resent: a sent job is final), and the campaign's leads are planned, the
 * first chunk now and the rest by the dispatcher.
 */
export async function startCampaign(deps: Pick<Deps, 'store' | 'clock'>, campaignId: string): Promise<void> {
  const now = deps.clock.now();
  const jobs = await queryAll(deps.store, jobsOfCampaign(campaignId));
  for (const job of jobs.filter((j) => j.state === 'PARKED').map(jobFromItem)) {
    // Its window (the schedule may have changed while it was parked) is applied before it is claimed: reading each lead here would cost a read a job.
    await move(deps, job, 'SCHEDULED', { due: { at: job.dueAt, now, open: CHECKED_BEFORE_CLAIM } });
  }
  await deps.store.update(campaignKey(campaignId), { set: { planCursor: null, planOffset: 0 }, remove: withoutPlanningIndex() });
  // The first chunk now, before the dispatcher can see the campaign: two planners of one chunk would only
  // get in each other's way. The rest, a chunk a tick, by the dispatcher.
  if (await planChunk(deps, campaignId)) await deps.store.update(campaignKey(campaignId), { set: planningIndex(campaignId) });
}

/**
 * A lead added to a running campaign is planned for now: the sender's slot
 * booking puts it after what its mailbox is already sending, so a long-running
 * campaign does not push newcomers weeks out.
 */
export async function planNewLead(
  deps: Pick<Deps, 'store' | 'clock'>,
  campaign: Pick<Campaign, 'id' | 'mailboxIds' | 'schedule'>,
  lead: Pick<Lead, 'id' | 'customFields'>,
): Promise<boolean> {
  const slot = await firstEmailPlan(deps, campaign, 0);
  const open = sendWindow(campaign.schedule, lead.customFields);
  if (!(await createJob(deps, { leadId: lead.id, campaignId: campaign.id, step: 0, ...slot(0), open }, deps.clock.now()))) return false;
  await deps.store.update(campaignKey(campaign.id), { add: { planned: 1 } });
  return true;
}
