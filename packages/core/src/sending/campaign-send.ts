import type { Deps } from '../deps.ts';
import { TransactionFailedError } from '../errors.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import * as breaker from '../guardrails/breaker.ts';
import * as suppression from '../suppression/index.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import { leadKey, pinnedLeads } from '../lead/keys.ts';
import { FINAL, suppressEverywhere, transition } from '../lead/sequence.ts';
import { hasCredentials, imapLogin } from '../mailbox/access.ts';
import { sentMessageKey } from '../inbound/keys.ts';
import { composeEmail } from './compose.ts';
import { createJobOps, foldCounters, move, moveOps } from './jobs.ts';
import { jobKey } from './keys.ts';
import type { JobControl, SendOutcome, SendPlan } from './send-plan.ts';
import type { JobKind } from './kinds.ts';
import { mailboxKey } from '../mailbox/keys.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The mailboxes a job may go from, in order: the planned one first for a first email (rotation), the pinned one only for a follow-up. */
function candidates(job: Item, campaign: Item, lead: Item): string[] {
  if (Number(job.step) > 0) return lead.mailboxId ? [String(lead.mailboxId)] : [];
  const picked = (campaign.mailboxIds as string[] | undefined) ?? [];
  const planned = String(job.mailboxId ?? '');
  return picked.includes(planned) ? [planned, ...picked.filter((m) => m !== planned)] : picked;
}

/**
 * A campaign step for one lead: sent only while the campaign is ACTIVE and
 * the lead is not stopped, erased or deleted (re-read now, so a reply or an
 * erase while queued wins); a first email rotates over the campaign's
 * mailboxes, a follow-up goes from the mailbox its thread started in.
 */
export async function planCampaignSend(deps: Deps, job: Item, ctl: JobControl): Promise<SendPlan | SendOutcome> {
  const campaign = await deps.store.get(campaignKey(String(job.campaignId)));
  if (!campaign || campaign.status === 'ARCHIVED') return ctl.cancel('campaign archived');
  if (campaign.status !== 'ACTIVE') return ctl.park();

  const lead = await deps.store.get(leadKey(String(job.leadId)));
  if (!lead) return ctl.cancel('lead deleted');
  if (lead.erased || FINAL.has(String(lead.status))) return ctl.cancel(`lead ${String(lead.status).toLowerCase()}`);
  // Before anything that could end or hold the sequence another way: a suppressed address stops the lead everywhere.
  if (await suppression.isSuppressed(deps, String(lead.email))) {
    await suppressEverywhere(deps, String(lead.email));
    return ctl.cancel('address suppressed');
  }

  const step = Number(job.step);
  const steps = (campaign.steps as { body?: string }[] | undefined) ?? [];
  if (step > 0 && !(steps[step - 1]?.body ?? '').trim()) {
    // The follow-up was removed or emptied after launch: the sequence ends here instead of sending a bare footer.
    await transition(deps, lead, 'COMPLETED');
    return ctl.cancel('follow-up removed from the campaign');
  }
  const mailboxIds = candidates(job, campaign, lead);
  // A first email waits for the campaign to have a mailbox again; a follow-up has no other mailbox to go from.
  if (!mailboxIds.length) return step === 0 ? ctl.reschedule(ctl.now + HOUR, 'The campaign has no mailbox to send from.') : ctl.cancel('no pinned mailbox');
  // Checked before any paid AI call.
  if (step === 0 && (!String(campaign.template ?? '').trim() || !String(campaign.subject ?? '').trim())) {
    return ctl.reschedule(ctl.now + HOUR, 'The first email has no subject or body.');
  }

  return {
    mailboxIds,
    pinned: step > 0,
    to: String(lead.email),
    breakerCampaignId: String(campaign.id),
    // Read again in the write that starts SMTP: a reply, bounce or stop that landed while the copy was written wins.
    guard: {
      key: leadKey(String(lead.id)),
      if: { and: [{ or: [{ attr: 'status', op: '=', value: 'NEW' }, { attr: 'status', op: '=', value: 'CONTACTED' }] }, { attr: 'erased', exists: false }] },
      reason: 'the lead replied, bounced or was stopped before the send',
    },
    onSuppressed: () => suppressEverywhere(deps, String(lead.email)),
    compose: (mailbox, domain) => composeEmail(deps, { campaign, lead, mailbox, domain, step }),
    recordSent: (held, mailbox, composed) =>
      recordSent(deps, { job: held, campaign, lead, mailbox, subject: composed.subject, messageId: composed.email.messageId, aiGenerated: composed.aiGenerated }),
    async recordBounce(held, mailbox, lastError) {
      // A 5xx at RCPT or DATA is a bounce: the lead stops, the address is suppressed, the breaker counts it.
      await move(deps, held, 'FAILED', { set: { lastError, failedAt: new Date(deps.clock.now()).toISOString() } });
      await transition(deps, lead, 'BOUNCED');
      await suppression.suppress(deps, String(lead.email), 'bounce');
      await suppressEverywhere(deps, String(lead.email), String(lead.id));
      await breaker.recordSend(deps, String(campaign.id), String(mailbox.id));
      await breaker.recordBounce(deps, String(campaign.id), String(mailbox.id));
    },
    async recordUnknown(held, mailbox) {
      // The server may have taken it: never resent blindly (docs/sending.md, Exactly once).
      if (filesSentMail(mailbox)) {
        // The provider files what it sent: the job stays claimed, and once the claim is old enough
        // for the provider to have filed it, the dispatcher looks in the Sent folder (settleDeadClaims).
        await deps.store.update(jobKey(String(held.id)), { set: { lastError: 'outcome unknown: to be looked up in the Sent folder' } });
        return;
      }
      await move(deps, held, 'FAILED', { set: { lastError: 'outcome unknown: the connection broke during the send', failedAt: new Date(deps.clock.now()).toISOString() } });
    },
  };
}

/**
 * The record right after SMTP said yes, in one transaction: the job is SENT,
 * the campaign counts it, the lead is pinned to the mailbox with the thread
 * to reply in, and the next step is planned waitDays later.
 */
export async function recordSent(
  deps: Deps,
  s: { job: Item; campaign: Item; lead: Item; mailbox: Item; subject: string; messageId: string; aiGenerated: boolean },
): Promise<void> {
  const now = deps.clock.now();
  const step = Number(s.job.step);
  const steps = (s.campaign.steps as { waitDays: number }[] | undefined) ?? [];
  const thread = (s.lead.thread as { firstSubject?: string; messageIds?: string[] } | undefined) ?? {};
  const next = steps[step];
  const sentAt = new Date(now).toISOString();
  const counted: TransactOp[] = [
    {
      update: campaignKey(String(s.campaign.id)),
      change: { add: { [counter.sent]: 1 }, set: { lastActivityAt: sentAt } },
    },
    // What a reply's In-Reply-To or a bounce report's returned original will be looked up by.
    { put: { ...sentMessageKey(s.messageId), jobId: String(s.job.id), leadId: String(s.lead.id), campaignId: String(s.campaign.id), mailboxId: String(s.mailbox.id) } },
  ];
  const ops: TransactOp[] = [
    ...moveOps(s.job, 'SENT', { set: { sentAt, subject: s.subject, aiGenerated: s.aiGenerated } }),
    ...counted,
    {
      update: leadKey(String(s.lead.id)),
      change: {
        set: {
          mailboxId: s.mailbox.id,
          gsi4pk: pinnedLeads(String(s.mailbox.id)),
          gsi4sk: s.lead.id,
          thread: { firstSubject: thread.firstSubject ?? s.subject, messageIds: [...(thread.messageIds ?? []), s.messageId] },
          stepsSent: step + 1,
          lastSentAt: sentAt,
        },
        // Erased or deleted while this email was on its way: the row must not get the thread (its subject holds the person's words) back.
        if: { and: [{ itemExists: true }, { attr: 'erased', exists: false }] },
      },
    },
    ...(next
      ? createJobOps({ leadId: String(s.lead.id), campaignId: String(s.campaign.id), step: step + 1, dueAt: now + next.waitDays * DAY, mailboxId: String(s.mailbox.id) }, now)
      : []),
  ];
  try {
    await deps.store.transact(foldCounters(ops));
  } catch (err) {
    if (!(err instanceof TransactionFailedError)) throw err;
    const lead = await deps.store.get(leadKey(String(s.lead.id)));
    if (lead && !lead.erased) throw err;
    // The email went: it is recorded and counted, without its subject, and nothing follows it.
    await deps.store.transact(foldCounters([...moveOps(s.job, 'SENT', { set: { sentAt, aiGenerated: s.aiGenerated } }), ...counted]));
    await breaker.recordSend(deps, String(s.campaign.id), String(s.mailbox.id));
    return;
  }
  // Bookkeeping that may lag without harm: a status move (conditional, counted) and the breaker's send count.
  await transition(deps, { ...s.lead, status: s.lead.status }, next ? 'CONTACTED' : 'COMPLETED');
  await breaker.recordSend(deps, String(s.campaign.id), String(s.mailbox.id));
}

/** Providers that file sent mail in the Sent folder themselves, when the engine can read it over IMAP (password or OAuth). */
export function filesSentMail(mailbox: Item): boolean {
  return (mailbox.provider === 'GOOGLE' || mailbox.provider === 'MICROSOFT') && Boolean(mailbox.imapHost) && hasCredentials(mailbox);
}

/**
 * A campaign step whose sender died after SMTP began: where the provider
 * files what it sends (GOOGLE, MICROSOFT), the Sent folder says whether it
 * went; otherwise it is FAILED with the reason and never resent
 * (docs/sending.md, Exactly once).
 */
async function settleUnknown(deps: Deps, job: Item): Promise<boolean> {
  const mailbox = job.mailboxId ? await deps.store.get(mailboxKey(String(job.mailboxId))) : undefined;
  if (mailbox && filesSentMail(mailbox)) return settleBySentFolder(deps, job, mailbox);
  const ok = await move(deps, job, 'FAILED', {
    set: { lastError: 'outcome unknown: the sender stopped during the send, so it was not sent again', failedAt: new Date(deps.clock.now()).toISOString() },
  });
  if (ok) deps.log.error('send outcome unknown after a crash; not resent', { jobId: job.id, mailboxId: job.mailboxId, messageId: job.messageId });
  return ok;
}

/** Give up looking after a day of not being able to read the Sent folder. */
const SENT_LOOKUP_GIVE_UP_MS = 24 * 3_600_000;

/**
 * Found in the Sent folder: it went, and is recorded as sent (follow-ups
 * planned). Not found: it did not go, and is scheduled again. The folder
 * cannot be read: asked again at the next tick, for a day, then FAILED.
 */
async function settleBySentFolder(deps: Deps, job: Item, mailbox: Item): Promise<boolean> {
  try {
    const found = await deps.mailReader.sentContains(await imapLogin(deps, mailbox), String(job.messageId));
    if (found) {
      const campaign = await deps.store.get(campaignKey(String(job.campaignId)));
      const lead = await deps.store.get(leadKey(String(job.leadId)));
      if (!campaign || !lead) {
        return move(deps, job, 'SENT', { set: { sentAt: new Date(deps.clock.now()).toISOString(), lastError: 'found in the Sent folder' } });
      }
      await recordSent(deps, { job, campaign, lead, mailbox, subject: String(job.subject ?? ''), messageId: String(job.messageId), aiGenerated: Boolean(job.aiGenerated) });
      deps.log.warn('send outcome settled: found in the Sent folder', { jobId: job.id });
      return true;
    }
    deps.log.warn('send outcome settled: not in the Sent folder, sending again', { jobId: job.id });
    return move(deps, job, 'SCHEDULED', { set: { dueAt: deps.clock.now(), lastError: 'not in the Sent folder after an unknown outcome: sent again' }, remove: ['messageId', 'claimId', 'smtpStartedAt'] });
  } catch (err) {
    deps.log.warn('could not read the Sent folder; will try again', { jobId: job.id, err });
    if (deps.wallClock.now() - Number(job.smtpStartedAt) < SENT_LOOKUP_GIVE_UP_MS) return false;
    return move(deps, job, 'FAILED', { set: { lastError: 'outcome unknown: the Sent folder could not be read for a day', failedAt: new Date(deps.clock.now()).toISOString() } });
  }
}

export const campaignStep: JobKind = { name: 'campaign', label: 'campaign', plan: planCampaignSend, settleUnknown };
