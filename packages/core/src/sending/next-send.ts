/**
 * GET /v1/leads/{id}/next-send: when a lead's next email may start, and
 * every rule holding it now ("why isn't this lead sending?"). Read only: it
 * answers from the rows the send itself would read (the lead, its campaign,
 * its jobs, the queue switch, the suppression list, the mailbox with its
 * day's count, breaker pair and domain), with the send path's own rules, at
 * the engine time of the read. Two reads with nothing changed answer the same.
 */
import type { Deps } from '../deps.ts';
import { NotFoundError } from '../errors.ts';
import type { Key } from '../ports/store.ts';
import { fromItem as campaignFromItem } from '../campaign/entity.ts';
import { campaignKey } from '../campaign/keys.ts';
import { fromItem as domainFromItem, hasMailingAddress } from '../domain/entity.ts';
import { domainKey } from '../domain/keys.ts';
import { pairFromItem } from '../guardrails/breaker.entity.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { fromItem as leadFromItem } from '../lead/entity.ts';
import { leadKey } from '../lead/keys.ts';
import { SENDABLE } from '../lead/sequence.ts';
import { canSend, dailyCapOf, fromItem as mailboxFromItem } from '../mailbox/entity.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { nextOpen, isOpen } from '../schedule/window.ts';
import { addressHash } from '../suppression/index.ts';
import { suppressionKey } from '../suppression/keys.ts';
import { nextUtcDay } from './cadence.ts';
import { followUpAt, sendWindow } from './due.ts';
import { fromItem as jobFromItem, type Job } from './job.entity.ts';
import { dailyCapKey, jobKeysOfLead, queueSwitchKey } from './keys.ts';
import { dailySendsFromItem, queueSwitchFromItem } from './queue.entity.ts';
import { Reads } from './read-batch.ts';
import type { NextSendView, BlockRule } from './next-send.view.ts';

type D = Pick<Deps, 'store' | 'keys' | 'clock'>;
type Block = NextSendView['blockedBy'][number];

const iso = (t: number | null | undefined) => (t === null || t === undefined ? null : new Date(t).toISOString());
const ENDS = new Set<BlockRule>(['finished', 'suppressed']);

export async function nextSend(deps: D, leadId: string): Promise<NextSendView> {
  const now = deps.clock.now();
  const read = new Reads(now);
  await read.fetch(deps, [leadKey(leadId), queueSwitchKey, ...jobKeysOfLead(leadId)]);
  const lead = read.parsed(leadKey(leadId), leadFromItem);
  if (!lead || lead.erased) throw new NotFoundError(`There is no lead ${leadId}.`);
  const jobs = new Map<number, Job>();
  for (const key of jobKeysOfLead(leadId)) {
    const job = read.parsed(key, jobFromItem);
    if (job && 'step' in job && typeof job.step === 'number') jobs.set(job.step, job);
  }
  const listed = suppressionKey(await addressHash(deps, lead.email));
  await read.fetch(deps, [campaignKey(lead.campaignId), listed]);
  const campaign = read.parsed(campaignKey(lead.campaignId), campaignFromItem);
  const open = sendWindow(campaign?.schedule, lead.customFields);
  const blocks: Block[] = [];
  const block = (rule: BlockRule, until: number | null, detail: string) => blocks.push({ rule, until: iso(until), detail });

  // The step that comes next: the first one not sent (a job that ended without sending is passed over, as the sweep does).
  const total = 1 + (campaign?.steps.length ?? 0);
  let step: number | null = lead.stepsSent ?? 0;
  while (step < total && jobs.get(step) && ['FAILED', 'CANCELLED', 'SENT'].includes(jobs.get(step)!.state)) step++;
  if (step >= total || (step > 0 && !lead.mailboxId)) step = null;
  const job = step === null ? undefined : jobs.get(step);

  if (read.get(listed) || lead.status === 'SUPPRESSED') {
    block('suppressed', null, 'The address is on the suppression list: nothing more is sent to it.');
  } else if (!SENDABLE.has(lead.status)) {
    block('finished', null, `The lead is ${lead.status.toLowerCase()}: its sequence has ended.`);
  } else if (step === null) {
    block('finished', null, 'Every step of the sequence has been sent or passed over.');
  }
  if (!campaign || campaign.status !== 'ACTIVE') {
    block(
      'paused',
      null,
      campaign ? `The campaign is ${campaign.status.toLowerCase()}: it sends once it is launched.` : 'The campaign no longer exists.',
    );
  }
  if (queueSwitchFromItem(read.get(queueSwitchKey)).paused)
    block('paused', null, 'The send queue is paused install-wide (POST /v1/queue/pause).');

  // The earliest start the stored plan allows: the job's due time, or for a step not planned yet the time it will be wanted.
  let earliest = now;
  if (job) earliest = Math.max(earliest, job.dueAt);
  if (step === 0 && job && job.dueAt > now && !(open && !isOpen(open.window, open.timezone, now))) {
    block(
      'cadence',
      job.dueAt,
      'First emails are spread over the mailboxes by the cadence and their daily caps: this one is planned for later.',
    );
  }
  if (step !== null && step > 0 && campaign) {
    const waitDays = campaign.steps[step - 1]?.waitDays ?? 0;
    const wanted = followUpAt(Date.parse(lead.lastSentAt ?? '') || now, waitDays);
    if (wanted > now) block('waitDays', wanted, `A follow-up waits ${waitDays} day${waitDays === 1 ? '' : 's'} after the email before it.`);
    earliest = Math.max(earliest, wanted);
  }
  const held = job?.heldUntil ? Date.parse(job.heldUntil) : NaN;
  if (held > now) block('outOfOffice', held, 'The lead is away (an out-of-office reply): its email waits for the return date.');

  if (campaign && step !== null) {
    // The mailbox it would go from: a follow-up's pinned one, a first email's planned one (else the campaign's first).
    const mailboxId = step > 0 ? lead.mailboxId : (job?.mailboxId ?? campaign.mailboxIds[0]);
    const keys: Key[] = mailboxId ? [mailboxKey(mailboxId), dailyCapKey(mailboxId, utcDay(now)), pairKey(campaign.id, mailboxId)] : [];
    await read.fetch(deps, keys);
    const mailbox = mailboxId ? read.parsed(mailboxKey(mailboxId), mailboxFromItem) : undefined;
    if (!mailbox) {
      block('mailbox', null, step > 0 ? 'The mailbox the thread started in was deleted.' : 'The campaign has no mailbox to send from.');
    } else {
      await read.fetch(deps, [domainKey(mailbox.domainId)]);
      if (!canSend(mailbox)) block('mailbox', null, `The mailbox ${mailbox.email} is ${mailbox.status.toLowerCase()}.`);
      if (pairFromItem(read.get(pairKey(campaign.id, mailbox.id))).tripped) {
        block(
          'breaker',
          null,
          `The bounce circuit breaker paused ${mailbox.email} for this campaign (PATCH pausedForBounceRate: false resumes it).`,
        );
      }
      const domain = read.parsed(domainKey(mailbox.domainId), domainFromItem);
      if (!domain || !hasMailingAddress(domain)) block('domain', null, 'The sending domain has no mailing address for the footer.');
      if (dailySendsFromItem(read.get(dailyCapKey(mailbox.id, utcDay(now)))).count >= dailyCapOf(mailbox)) {
        block('dailyCap', nextUtcDay(now), `${mailbox.email} has sent its daily cap of ${dailyCapOf(mailbox)} today.`);
        earliest = Math.max(earliest, nextUtcDay(now));
      }
      if ((mailbox.nextSlotAt ?? 0) > now) {
        block('cadence', mailbox.nextSlotAt!, `${mailbox.email} is spacing its sends (cadence floor and jitter).`);
        earliest = Math.max(earliest, mailbox.nextSlotAt!);
      }
    }
  }
  if (open && !isOpen(open.window, open.timezone, now)) {
    block(
      'window',
      nextOpen(open.window, open.timezone, now),
      `Outside the sending window (${open.window.start} to ${open.window.end} in ${open.timezone}).`,
    );
  }

  // Nothing that only time lifts is left: never, as far as the stored state says, until something changes.
  const never = blocks.some((b) => ENDS.has(b.rule) || b.until === null);
  return {
    leadId: lead.id,
    campaignId: lead.campaignId,
    step: blocks.some((b) => ENDS.has(b.rule)) ? null : step,
    earliestAt: never ? null : iso(open ? nextOpen(open.window, open.timezone, earliest) : earliest),
    timezone: open?.timezone ?? null,
    timezoneSource: open?.timezoneSource ?? null,
    blockedBy: blocks,
  };
}
