/**
 * What the engine learns about a lead from mail: an email went, the lead
 * replied, the address bounced, the recipient complained or unsubscribed, the
 * address was suppressed. Each verb is the one place its rule lives; it
 * writes what the fact changes on the lead, its campaign and (for a bounce)
 * the suppression list and the breaker in one transaction, and answers
 * whether the fact is new, so a message read twice or a record retried
 * changes nothing more. docs/sending.md, Lead facts.
 */
import type { Deps } from '../deps.ts';
import { TransactionFailedError } from '../errors.ts';
import type { TransactOp } from '../ports/store.ts';
import * as breaker from '../guardrails/breaker.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { pairFromItem, type BreakerPair } from '../guardrails/breaker.entity.ts';
import * as suppression from '../suppression/index.ts';
import type { SuppressionReason } from '../suppression/index.ts';
import type { Campaign } from '../campaign/entity.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { sentMessageKey } from '../inbound/keys.ts';
import { sentMessageItem } from '../conversation/entity.ts';
import { cancelOpenJobs, createJobOps, foldCounters, sentJobOps } from '../sending/jobs.ts';
import { followUpAt, sendWindow } from '../sending/due.ts';
import { jobKey } from '../sending/keys.ts';
import type { CampaignStepJob } from '../sending/job.entity.ts';
import { fromItem, type Lead, type LeadBounce } from './entity.ts';
import { leadKey, pinIndex, withoutPinIndex } from './keys.ts';
import { rowsOf, SENDABLE, statusOps, transition, variantAdd } from './sequence.ts';
import { bounceEventOps, eventOps } from '../webhooks/events.ts';
import { removeJobOfDeletedLead } from './delete.ts';
import { afterFirstSent } from '../campaign/variants.ts';

/** A row that stops leaves the index of leads pinned to a mailbox (a deleted mailbox has nothing left to end there). */
const UNPIN = withoutPinIndex();

const iso = (ms: number) => new Date(ms).toISOString();

/** One email of a campaign step that went (or is taken as sent), as its claim left it. */
export interface SentEmail {
  job: CampaignStepJob;
  campaign: Campaign;
  lead: Lead;
  mailbox: Mailbox;
  subject: string;
  messageId: string;
  aiGenerated: boolean;
  /** The breaker pair as read before the claim: its epoch is the window the send counts in. */
  pair: BreakerPair;
  /** The outcome was unknown and is taken as sent: the job says so and the queue counts it. */
  unconfirmed?: boolean;
  /** The plain text as sent, kept for the conversation; absent when only the claim is left to record from (a crash), which never stored it. */
  text?: string;
}

/**
 * Sent, in one transaction: the job is SENT, the campaign counts it, the
 * lead is pinned to the mailbox with the thread to reply in and moves to
 * CONTACTED (COMPLETED after the last step) by the status rules, the breaker
 * counts the send, and the next step is planned waitDays later. A lead that
 * replied or was stopped since the claim keeps its status and gets nothing
 * planned; an erased or deleted one gets nothing back. False when the send
 * was recorded already (a retry whose first answer was lost).
 */
export async function sent(deps: Pick<Deps, 'store' | 'clock' | 'wallClock' | 'log' | 'metrics'>, s: SentEmail): Promise<boolean> {
  const now = deps.clock.now();
  const step = s.job.step;
  const next = s.campaign.steps[step];
  const sentAt = iso(now);
  const campaignId = s.campaign.id;
  const mailboxId = s.mailbox.id;
  const unconfirmed = Boolean(s.unconfirmed);
  const counted: TransactOp[] = [
    // What a reply's In-Reply-To or a bounce report's returned original will be looked up by.
    { put: { ...sentMessageKey(s.messageId), jobId: s.job.id, leadId: s.lead.id, campaignId, mailboxId } },
    breaker.sendCountOp(campaignId, mailboxId, s.pair, now),
  ];
  // A first email sent under a variant counts for it (docs/sending.md, Variants), once, with the send.
  const variant = step === 0 ? s.job.variant : undefined;
  const campaign = {
    add: { [counter.sent]: 1, ...(variant !== undefined ? { [counter.variant(variant, 'sent')]: 1 } : {}) },
    set: { lastActivityAt: sentAt },
  };
  // The email.sent event rides in whichever of the three transactions below goes through: keyed by the job, so a retry rewrites the same event.
  const event = await eventOps(
    deps,
    'email.sent',
    { leadId: s.lead.id, campaignId, mailboxId, step, messageId: s.messageId, sentAt },
    s.job.id,
  );
  const withLead = (lead: Lead): TransactOp[] => {
    const thread = lead.thread ?? {};
    const { ops } = statusOps(
      lead,
      next ? 'CONTACTED' : 'COMPLETED',
      {
        at: sentAt,
        set: {
          mailboxId,
          ...pinIndex(mailboxId, lead.id),
          thread: { firstSubject: thread.firstSubject ?? s.subject, messageIds: [...(thread.messageIds ?? []), s.messageId] },
          stepsSent: step + 1,
          lastSentAt: sentAt,
        },
        // Erased or deleted while this email was on its way: the row must not get the thread (its subject holds the person's words) back.
        // The status it moves from is the one it had, so a reply recorded meanwhile is never overwritten.
        if: [{ itemExists: true }, { attr: 'erased', exists: false }],
        campaign,
      },
      deps.wallClock.now(),
    );
    return [
      ...sentJobOps(s.job, { sentAt, subject: s.subject, aiGenerated: s.aiGenerated }, unconfirmed),
      ...ops,
      ...counted,
      // The conversation's copy goes with the lead's own update, so an erased or deleted lead never gets its words back.
      { put: sentMessageItem(lead.id, now, { step, messageId: s.messageId, subject: s.subject, text: s.text ?? '', jobId: s.job.id }) },
      ...(next && SENDABLE.has(lead.status)
        ? createJobOps(
            {
              leadId: lead.id,
              campaignId,
              step: step + 1,
              dueAt: followUpAt(now, next.waitDays),
              open: sendWindow(s.campaign.schedule, lead.customFields),
              mailboxId,
              domainId: s.mailbox.domainId,
            },
            now,
          )
        : []),
    ];
  };
  try {
    await deps.store.transact([...foldCounters(withLead(s.lead)), ...event]);
  } catch (err) {
    if (!(err instanceof TransactionFailedError)) throw err;
    const job = await deps.store.get(jobKey(s.job.id));
    if (job?.state === 'SENT') return false;
    if (err.failed.includes(0)) throw err;
    const row = await deps.store.get(leadKey(s.lead.id));
    const lead = row && fromItem(row);
    if (lead && !lead.erased) {
      // It replied or was stopped since the claim: recorded as sent, its status kept, nothing more planned.
      await deps.store.transact([...foldCounters(withLead(lead)), ...event]);
    } else {
      // The email went: it is recorded and counted, without its subject, and nothing follows it.
      const counts: TransactOp = { update: campaignKey(campaignId), change: campaign };
      await deps.store.transact([
        ...foldCounters([...sentJobOps(s.job, { sentAt, aiGenerated: s.aiGenerated }, unconfirmed), counts, ...counted]),
        ...event,
      ]);
      // Deleted (not erased, which keeps the row): the counts are in, and the job goes as the delete's other jobs went.
      if (!row) await removeJobOfDeletedLead(deps, s.job.id);
    }
  }
  if (breaker.bouncedLately(s.pair, now)) await breaker.evaluate(deps, campaignId, mailboxId);
  // The figures as read plus this send, judged in memory: a write only when they name a winner first.
  if (variant !== undefined) await afterFirstSent(deps, s.campaign, variant);
  return true;
}

/**
 * Replied (at the message's time): the lead is REPLIED, the campaign counts the reply, and the sequence's open jobs
 * end. The reply.received event is not this fact's: every reply is one, so it rides on the reply's own stored record
 * (inbound/apply.ts), and a lead's second answer gives an event too.
 */
export async function replied(
  deps: Pick<Deps, 'store' | 'clock' | 'wallClock' | 'log' | 'metrics'>,
  lead: Lead,
  receivedAt: number,
): Promise<boolean> {
  // The sequence stops at once: the lead's status (which the send path checks right before SMTP) and its open jobs.
  const moved = await transition(deps, lead, 'REPLIED', {
    set: { repliedAt: iso(receivedAt) },
    campaign: { add: { [counter.replies]: 1 }, set: { lastActivityAt: iso(deps.clock.now()) } },
  });
  if (moved) deps.metrics.count('Replies');
  await cancelOpenJobs(deps, lead.id, 'the lead replied');
  return moved;
}

/** A hard bounce, read from the SMTP server's answer at the send or from a report in a mailbox. */
export interface Bounce {
  source: LeadBounce['via'];
  /** The mailbox the bounced email went from: the breaker counts the bounce on its pair with the lead's campaign. */
  sentFrom: string;
  /** What the lead's row shows; `confirmed`: the report returned an email the engine sent to this address (an SMTP answer always is). */
  note: Omit<LeadBounce, 'via'>;
}

/**
 * Bounced. Confirmed, in one transaction: the lead is BOUNCED, the address
 * goes on the suppression list, and the breaker counts one bounce (and, at
 * SMTP time, its send, which no send record counted) on the pair of the
 * lead's campaign and the mailbox the email went from. The counts go with
 * the move, so a bounce counts once however often it is read. Then the
 * address's other rows stop and the breaker looks at the pair's rate.
 * Unconfirmed (anyone can write a report naming an address): only this lead
 * stops, nothing is suppressed or counted.
 */
export async function bounced(
  deps: Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log' | 'metrics'>,
  lead: Lead,
  b: Bounce,
): Promise<boolean> {
  const now = deps.clock.now();
  const change = { set: { bounce: { ...b.note, via: b.source } }, campaign: { set: { lastActivityAt: iso(now) } } };
  // The email.bounced event goes with the move to BOUNCED, so a bounce read twice (or at SMTP time and in a report) gives one.
  const event = await bounceEventOps(deps, lead, b.sentFrom, b.note);
  if (!b.note.confirmed) {
    const moved = await transition(deps, lead, 'BOUNCED', change, event);
    await cancelOpenJobs(deps, lead.id, 'the address bounced');
    if (moved) {
      deps.metrics.count('UnconfirmedReports');
      deps.log.warn(
        'a bounce report returned no email the engine sent to this address: only this lead stopped, nothing suppressed or counted',
        { leadId: lead.id, mailboxId: b.sentFrom },
      );
    }
    return moved;
  }
  const pair = pairFromItem(await deps.store.get(pairKey(lead.campaignId, b.sentFrom)));
  const listed = await suppression.suppressOp(deps, lead.email, 'bounce');
  const moved = await transition(deps, lead, 'BOUNCED', change, [
    listed,
    ...breaker.bounceCountOps(lead.campaignId, b.sentFrom, pair, now, b.source === 'smtp'),
    ...event,
  ]);
  // Bounced before (a report read again) or stopped another way: the address is listed all the same.
  if (!moved) await deps.store.put(listed.put);
  await cancelOpenJobs(deps, lead.id, 'the address bounced');
  await stopEverywhere(deps, lead.email, lead.id);
  if (moved) {
    deps.metrics.count('Bounces');
    if (!pair.tripped) await breaker.evaluate(deps, lead.campaignId, b.sentFrom, pair.epoch);
  }
  return moved;
}

/**
 * Complained. Confirmed by the returned email, the address is suppressed in
 * every campaign; unconfirmed, only this lead's sequence ends (SUPPRESSED)
 * and the list is left alone.
 */
export async function complained(
  deps: Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log' | 'metrics'>,
  lead: Lead,
  confirmed: boolean,
): Promise<boolean> {
  // The email.complained event goes with this lead's row stopping: a complaint about a row already stopped is no new fact.
  const event = await eventOps(
    deps,
    'email.complained',
    { leadId: lead.id, campaignId: lead.campaignId, email: lead.email },
    `${leadKey(lead.id).pk}#COMPLAINED`,
  );
  let fresh: boolean;
  if (confirmed) {
    await suppression.suppress(deps, lead.email, 'complaint');
    const own = await transition(deps, lead, 'SUPPRESSED', { remove: UNPIN }, event);
    fresh = (await stopEverywhere(deps, lead.email)) || own;
  } else if ((fresh = await transition(deps, lead, 'SUPPRESSED', { set: { endedBy: 'COMPLAINT' }, remove: UNPIN }, event)))
    deps.metrics.count('UnconfirmedReports');
  await cancelOpenJobs(deps, lead.id, 'the recipient complained');
  return fresh;
}

/**
 * Unsubscribed: the address (or, for a deleted lead, the hash that stayed of it) is suppressed, and its rows stop.
 * The lead whose link it was stops first, with the lead.unsubscribed event (a second click finds it stopped: no second event).
 */
export async function unsubscribed(
  deps: Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log'>,
  who: { email: string; lead?: Lead } | { addressHash: string },
): Promise<boolean> {
  if ('email' in who) {
    await suppression.suppress(deps, who.email, 'unsubscribe');
    const lead = who.lead;
    const own = lead
      ? await transition(
          deps,
          lead,
          'SUPPRESSED',
          { remove: UNPIN, campaign: { add: variantAdd(lead, 'unsubscribed') } },
          await eventOps(
            deps,
            'lead.unsubscribed',
            { leadId: lead.id, campaignId: lead.campaignId, email: lead.email },
            `${leadKey(lead.id).pk}#UNSUBSCRIBED`,
          ),
        )
      : false;
    return (await stopEverywhere(deps, who.email)) || own;
  }
  await suppression.suppressHash(deps, who.addressHash, 'unsubscribe');
  return false;
}

/**
 * Suppress, then stop everywhere: the address goes on the install-wide list
 * first (what the claim holds against every send), then every campaign's
 * row of it ends SUPPRESSED; `except` keeps one row's own status (a bounce).
 * True when a row stopped here.
 */
export async function suppressAddress(
  deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>,
  email: string,
  reason: SuppressionReason,
  except?: string,
): Promise<boolean> {
  await suppression.suppress(deps, email, reason);
  return stopEverywhere(deps, email, except);
}

/** An address found on the list: every campaign's row of it ends SUPPRESSED. True when a row stopped here. */
export async function stopEverywhere(deps: Pick<Deps, 'store' | 'wallClock'>, email: string, except?: string): Promise<boolean> {
  let stopped = false;
  for (const lead of await rowsOf(deps, email)) {
    if (lead.id !== except && (await transition(deps, lead, 'SUPPRESSED', { remove: UNPIN }))) stopped = true;
  }
  return stopped;
}
