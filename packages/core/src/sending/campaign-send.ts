import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import { pairFromItem } from '../guardrails/breaker.entity.ts';
import * as suppression from '../suppression/index.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { Reads } from './read-batch.ts';
import { fromItem as campaignFromItem, type Campaign } from '../campaign/entity.ts';
import { fromItem as leadFromItem, type Lead } from '../lead/entity.ts';
import { filesSentMail, fromItem as mailboxFromItem, type Mailbox } from '../mailbox/entity.ts';
import { FILING_DELAY_MS } from '../inbound/sent-filing.ts';
import { campaignKey } from '../campaign/keys.ts';
import { leadKey } from '../lead/keys.ts';
import { sendable, sendableIf, transition } from '../lead/sequence.ts';
import * as facts from '../lead/facts.ts';
import { removeJobOfDeletedLead } from '../lead/delete.ts';
import { imapLogin } from '../mailbox/access.ts';
import { composeEmail, type Composed } from './compose.ts';
import { foldCounters, move, sentJobOps } from './jobs.ts';
import { accepted } from './outcome.ts';
import { jobKey } from './keys.ts';
import { campaignStepOf, type CampaignStepJob, type Job } from './job.entity.ts';
import type { JobControl, JobKind, SendOutcome, SendPlan } from './job-kind.ts';
import { CHECKED_BEFORE_CLAIM, openAt, sendWindow } from './due.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { chooseVariant } from '../campaign/variants.ts';

const HOUR = 3_600_000;

/** The mailboxes a job may go from, in order: the planned one first for a first email (rotation), the pinned one only for a follow-up. */
function candidates(job: CampaignStepJob, campaign: Campaign, lead: Lead): string[] {
  if (job.step > 0) return lead.mailboxId ? [lead.mailboxId] : [];
  const picked = campaign.mailboxIds;
  const planned = job.mailboxId ?? '';
  return picked.includes(planned) ? [planned, ...picked.filter((m) => m !== planned)] : picked;
}

/**
 * A campaign step for one lead: sent only while the campaign is ACTIVE and
 * the lead is not stopped, erased or deleted (read in the send's batch; the
 * claim and the start of SMTP hold the lead's state and the suppression list
 * as conditions, so a reply, erase or unsubscribe while queued wins); a first
 * email rotates over the campaign's mailboxes, a follow-up goes from the
 * mailbox its thread started in.
 */
export async function planCampaignSend(deps: Deps, queued: Job, read: Reads, ctl: JobControl): Promise<SendPlan | SendOutcome> {
  const job = campaignStepOf(queued);
  const campaign = read.parsed(campaignKey(job.campaignId), campaignFromItem);
  if (!campaign || campaign.status === 'ARCHIVED') return ctl.cancel('campaign archived');
  if (campaign.status !== 'ACTIVE') return ctl.park();

  const lead = read.parsed(leadKey(job.leadId), leadFromItem);
  if (!lead) return ctl.cancel('lead deleted');
  if (!sendable(lead)) return ctl.cancel(`lead ${lead.status.toLowerCase()}`);
  // From the rows this send read already (no read of its own): the window of the campaign as it is now, in the lead's zone.
  ctl.open = sendWindow(campaign.schedule, lead.customFields);

  // A job that is not going now looks at the suppression list first: a suppressed address ends the lead
  // everywhere rather than wait or end another way. (A job that goes has it checked in its claim.)
  const unlessSuppressed = async (outcome: () => Promise<SendOutcome>): Promise<SendOutcome> => {
    if (!(await suppression.isSuppressed(deps, lead.email))) return outcome();
    await facts.stopEverywhere(deps, lead.email);
    return ctl.cancel('address suppressed');
  };
  const step = job.step;
  const steps = campaign.steps;
  if (step > 0 && !(steps[step - 1]?.body ?? '').trim()) {
    // The follow-up was removed or emptied after launch: the sequence ends here instead of sending a bare footer.
    return unlessSuppressed(async () => {
      await transition(deps, lead, 'COMPLETED');
      return ctl.cancel('follow-up removed from the campaign');
    });
  }
  const mailboxIds = candidates(job, campaign, lead);
  // A first email waits for the campaign to have a mailbox again; a follow-up has no other mailbox to go from.
  if (!mailboxIds.length) {
    return unlessSuppressed(() =>
      step === 0 ? ctl.reschedule(ctl.now + HOUR, 'The campaign has no mailbox to send from.') : ctl.cancel('no pinned mailbox'),
    );
  }
  // A first email's variant, from the rows read (docs/sending.md, Variants): the lead's own, or one chosen now and given in the claim.
  const variant = step === 0 ? chooseVariant(campaign, lead, deps.random) : undefined;
  const first = variant?.copy ?? campaign;
  // Checked before any paid AI call.
  if (step === 0 && (!(first.template ?? '').trim() || !(first.subject ?? '').trim())) {
    return unlessSuppressed(() => ctl.reschedule(ctl.now + HOUR, 'The first email has no subject or body.'));
  }
  // Claimed outside its window (a queue delay, a backlog, a schedule changed since it was planned): due at the next opening.
  if (!openAt(ctl.open, ctl.now)) return unlessSuppressed(() => ctl.reschedule(ctl.now));
  // AI copy kept from an earlier try is reused only for the variant whose prompt wrote it.
  const aiBody = variant && job.aiVariant !== variant.index ? undefined : job.aiBody;
  /** The send recorded from what the claim composed: accepted by the server, or taken as sent after an unknown outcome. */
  const sent = (held: Job, mailbox: Mailbox, composed: Composed, unconfirmed?: true) =>
    facts.sent(deps, {
      job: campaignStepOf(held),
      campaign,
      lead,
      mailbox,
      subject: composed.subject,
      messageId: composed.email.messageId,
      aiGenerated: composed.aiGenerated,
      pair: pairFromItem(read.get(pairKey(campaign.id, mailbox.id))),
      text: composed.email.text,
      ...(unconfirmed ? { unconfirmed } : {}),
    });

  return {
    mailboxIds,
    pinned: step > 0,
    to: lead.email,
    breakerCampaignId: campaign.id,
    paid: Boolean(campaign.aiProvider) && !aiBody && (step === 0 || Boolean(steps[step - 1]?.aiRewrite)),
    // Read again in the write that starts SMTP: a reply, bounce or stop that landed while the copy was written wins.
    guard: {
      key: leadKey(lead.id),
      // A lead given its variant by this claim takes it here, once: a lead that has one keeps it.
      ...(variant?.fresh
        ? { set: { variant: variant.index }, if: { and: [sendableIf(), { attr: 'variant', exists: false }] } }
        : { if: sendableIf() }),
      reason: 'the lead replied, bounced or was stopped before the send',
    },
    ...(variant ? { claimSet: { variant: variant.index }, copyVariant: variant.index } : {}),
    ...(variant?.op ? { balance: variant.op } : {}),
    onSuppressed: async () => void (await facts.stopEverywhere(deps, lead.email)),
    compose: (mailbox, domain, written) =>
      composeEmail(deps, {
        campaign,
        lead,
        mailbox,
        domain,
        step,
        aiBody: written ?? aiBody,
        ...(variant ? { variant: variant.copy } : {}),
      }),
    recordSent: async (held, mailbox, composed) => void (await sent(held, mailbox, composed)),
    async recordBounce(held, mailbox, lastError, bounce) {
      // A hard 5xx at RCPT or DATA is a bounce, read as a report's would be (lead/facts.ts).
      const at = new Date(deps.clock.now()).toISOString();
      await move(deps, held, 'FAILED', { set: { lastError, failedAt: at } });
      // The lead as read before the claim, with the variant the claim gave it: a first email's bounce counts for its variant.
      await facts.bounced(deps, variant ? { ...lead, variant: variant.index } : lead, {
        source: 'smtp',
        sentFrom: mailbox.id,
        note: { ...bounce, confirmed: true, at },
      });
    },
    async recordUnknown(held, mailbox, composed) {
      // The server may have taken it: never resent blindly (docs/sending.md, Exactly once).
      if (filesSentMail(mailbox)) {
        // The provider files what it sent: the job stays claimed, and once the claim is old enough
        // for the provider to have filed it, the dispatcher looks in the Sent folder (settleDeadClaims).
        await deps.store.update(jobKey(held.id), { set: { lastError: 'outcome unknown: to be looked up in the Sent folder' } });
        return;
      }
      // No Sent folder can say: a send that reached the message has almost always been taken, so it is taken as sent.
      // A failed record leaves the claim, which the dispatcher settles the same way.
      takenAsSent(deps, held, mailbox.id);
      await sent({ ...held, messageId: composed.email.messageId }, mailbox, composed, true);
    },
  };
}

/** An unknown outcome taken as sent: logged and counted once, where it is decided. */
function takenAsSent(deps: Deps, job: Job, mailboxId: string | undefined): void {
  deps.metrics.count('UnconfirmedSends');
  deps.log.warn('send outcome unknown: taken as sent, never resent', { jobId: job.id, mailboxId, messageId: job.messageId });
}

/**
 * A campaign step whose sender died after SMTP began: where the server files
 * what it sends (GOOGLE, MICROSOFT, or any server found to: mailbox/entity.ts
 * filesSentMail), the Sent folder says whether it went; otherwise it is taken
 * as sent, never resent, and the lead moves on (docs/sending.md, Exactly once).
 */
async function settleUnknown(deps: Deps, job: Job): Promise<boolean> {
  const row = job.mailboxId ? await deps.store.get(mailboxKey(job.mailboxId)) : undefined;
  const mailbox = row && mailboxFromItem(row);
  if (mailbox && filesSentMail(mailbox)) return settleBySentFolder(deps, job, mailbox);
  return takeAsSent(deps, job);
}

/** No Sent folder could say: recorded as sent, flagged unconfirmed. False when another writer settled it first. */
export async function takeAsSent(deps: Deps, job: Job): Promise<boolean> {
  try {
    await settleSent(deps, job, { unconfirmed: true });
  } catch (err) {
    // Settled by another writer since the claim was read (the claims index lags the item).
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
  takenAsSent(deps, job, job.mailboxId);
  return true;
}

/** Give up looking after a day of not being able to read the Sent folder. */
const SENT_LOOKUP_GIVE_UP_MS = 24 * 3_600_000;
/**
 * Engine time between the two lookups that must both miss before an email is sent again. Gmail's and
 * Exchange's IMAP SEARCH reads a search index that can lag the folder by minutes: one miss is not proof
 * that the email never went, and a resend on it would mail the lead twice.
 */
export const SENT_ABSENT_CONFIRM_MS = 5 * 60_000;

/**
 * Found in the Sent folder: it went, and is recorded as sent (follow-ups
 * planned). Not found: it did not go, and is scheduled again. The folder
 * cannot be read: asked again at the next tick, for a day, then taken as
 * sent like a send no folder could settle (a lead never waits for good).
 */
async function settleBySentFolder(deps: Deps, job: Job, mailbox: Mailbox): Promise<boolean> {
  let now: number;
  try {
    // A claim always stores its Message-ID; without one there is nothing the folder could be found to hold.
    const found = job.messageId !== undefined && (await deps.mailReader.sentContains(await imapLogin(deps, mailbox), job.messageId));
    if (found) {
      await accepted(deps, () => settleSent(deps, job, { note: 'found in the Sent folder' }));
      deps.log.warn('send outcome settled: found in the Sent folder', { jobId: job.id });
      return true;
    }
    // Absent too soon after the send says nothing: a server files within seconds, and a local start settles every
    // claim at once. Asked again at a later tick rather than sent twice.
    if (deps.wallClock.now() - (job.smtpStartedAt ?? 0) < FILING_DELAY_MS) return false;
    now = deps.clock.now();
    // The first miss is noted and the folder asked again at a later tick: only a second miss, SENT_ABSENT_CONFIRM_MS on, sends again.
    if (job.sentMissingAt === undefined) {
      await deps.store
        .update(jobKey(job.id), {
          set: { sentMissingAt: now },
          if: {
            and: [
              { attr: 'state', op: '=', value: 'CLAIMED' },
              { attr: 'messageId', op: '=', value: job.messageId },
            ],
          },
        })
        .catch((err) => {
          if (!(err instanceof ConditionFailedError)) throw err;
        });
      return false;
    }
    if (now - job.sentMissingAt < SENT_ABSENT_CONFIRM_MS) return false;
  } catch (err) {
    deps.log.warn('could not read the Sent folder; will try again', { jobId: job.id, err });
    if (deps.wallClock.now() - (job.smtpStartedAt ?? 0) < SENT_LOOKUP_GIVE_UP_MS) return false;
    return takeAsSent(deps, job);
  }
  // Outside the try on purpose: a failed write here is the table's error, for the dispatcher, not an unreadable
  // folder (whose handling could end in taking as sent an email just found absent twice).
  deps.log.warn('send outcome settled: not in the Sent folder at two lookups, sending again', { jobId: job.id });
  return move(deps, job, 'SCHEDULED', {
    due: { at: now, now, open: CHECKED_BEFORE_CLAIM },
    set: { lastError: 'not in the Sent folder after an unknown outcome: sent again' },
    remove: ['messageId', 'claimId', 'smtpStartedAt', 'sentMissingAt'],
  });
}

/**
 * A claimed step known to have gone (the Sent folder has it, or its acceptance was queued),
 * or taken as sent (`unconfirmed`): recorded from what the claim stored.
 */
async function settleSent(deps: Deps, claimed: Job, how: { note?: string; unconfirmed?: boolean } = {}): Promise<void> {
  const job = campaignStepOf(claimed);
  const unconfirmed = Boolean(how.unconfirmed);
  // A claim always stores the mailbox and the Message-ID; without them there is nothing to record the send against.
  const { mailboxId, messageId } = job;
  const read = new Reads(deps.clock.now());
  await read.fetch(deps, [
    campaignKey(job.campaignId),
    leadKey(job.leadId),
    ...(mailboxId ? [mailboxKey(mailboxId), pairKey(job.campaignId, mailboxId)] : []),
  ]);
  const c = read.parsed(campaignKey(job.campaignId), campaignFromItem);
  const l = read.parsed(leadKey(job.leadId), leadFromItem);
  const m = mailboxId ? read.parsed(mailboxKey(mailboxId), mailboxFromItem) : undefined;
  if (!c || !l || !m || !mailboxId || messageId === undefined) {
    const set = { sentAt: new Date(deps.clock.now()).toISOString(), ...(how.note ? { lastError: how.note } : {}) };
    try {
      await deps.store.transact(foldCounters(sentJobOps(job, set, unconfirmed)));
    } catch (err) {
      // Settled already by another writer: nothing more to record.
      if (!(err instanceof ConditionFailedError)) throw err;
    }
    // Its lead deleted meanwhile: counted, the job goes as the delete's other jobs went.
    if (!l) await removeJobOfDeletedLead(deps, job.id);
    return;
  }
  await facts.sent(deps, {
    job,
    campaign: c,
    lead: l,
    mailbox: m,
    subject: job.subject ?? '',
    messageId,
    aiGenerated: job.aiGenerated ?? false,
    pair: pairFromItem(read.get(pairKey(job.campaignId, mailboxId))),
    unconfirmed,
  });
}

export const campaignStep: JobKind = {
  name: 'campaign',
  label: 'campaign',
  refOf: (job) => {
    const { campaignId, leadId } = campaignStepOf(job);
    return { campaignId, leadId };
  },
  reads: (ref) => [...(ref.campaignId ? [campaignKey(ref.campaignId)] : []), ...(ref.leadId ? [leadKey(ref.leadId)] : [])],
  plan: planCampaignSend,
  settleUnknown,
  settleSent: (deps, job) => settleSent(deps, job),
};
