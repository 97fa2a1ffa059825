import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import { openSecret } from '../secrets/index.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import type { MailboxTransport, SendResult } from '../ports/mailer.ts';
import * as breaker from '../guardrails/breaker.ts';
import { GuardrailError } from '../guardrails/footer.ts';
import * as suppression from '../suppression/index.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import { domainKey } from '../domain/keys.ts';
import { leadKey, pinnedLeads } from '../lead/keys.ts';
import { FINAL, suppressEverywhere, transition } from '../lead/sequence.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { passwordContext } from '../mailbox/index.ts';
import { bookDailySend, bookSlot, nextUtcDay, refundDailySend, sentToday } from './cadence.ts';
import { composeEmail } from './compose.ts';
import { createJobOps, foldCounters, getJob, move, moveOps } from './jobs.ts';
import { jobKey, queueSwitchKey } from './keys.ts';

export type SendOutcome = 'sent' | 'ignored' | 'rescheduled' | 'parked' | 'cancelled' | 'failed' | 'bounced';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Retries of a temporary failure (4xx, no connection), in engine minutes; then the job fails. */
export const RETRY_MINUTES = [5, 30, 120, 360] as const;
const SENDING = new Set(['ACTIVE', 'WARMING']);

export async function queuePaused(deps: Pick<Deps, 'store'>): Promise<boolean> {
  return Boolean((await deps.store.get(queueSwitchKey))?.paused);
}

async function transportFor(deps: Pick<Deps, 'keys'>, mailbox: Item): Promise<MailboxTransport | string> {
  if (!mailbox.smtpHost) return 'The mailbox has no SMTP host.';
  if (mailbox.auth !== 'password' || !mailbox.sealedPassword) return 'The mailbox has no SMTP password (OAuth sending is not connected).';
  return {
    mailboxId: String(mailbox.id),
    host: String(mailbox.smtpHost),
    port: Number(mailbox.smtpPort ?? 587),
    user: String(mailbox.authUsername ?? mailbox.email),
    auth: { type: 'password', pass: await openSecret(deps.keys, String(mailbox.sealedPassword), passwordContext(String(mailbox.id))) },
  };
}

/** The mailboxes a job may go from, in order: the planned one first for a first email (rotation), the pinned one only for a follow-up. */
function candidates(job: Item, campaign: Item, lead: Item): string[] {
  if (Number(job.step) > 0) return lead.mailboxId ? [String(lead.mailboxId)] : [];
  const picked = (campaign.mailboxIds as string[] | undefined) ?? [];
  const planned = String(job.mailboxId ?? '');
  return picked.includes(planned) ? [planned, ...picked.filter((m) => m !== planned)] : picked;
}

/**
 * The one send path: every email the engine sends goes through here, and
 * every guardrail is on it. In order: the job is still queued; the queue and
 * the campaign are running; the lead is not stopped, erased or suppressed
 * (re-read now, so an unsubscribe while queued wins); a mailbox of the
 * campaign is free (cadence floor plus jitter, daily cap, breaker); the
 * email is composed (address and unsubscribe guardrails, AI marker, RFC 8058
 * headers); the mailbox's slot and today's send are booked; the job is
 * claimed once (conditional write); SMTP; the outcome is recorded at once.
 */
export async function sendJob(deps: Deps, id: string): Promise<SendOutcome> {
  const job = await getJob(deps, id);
  if (!job || job.state !== 'QUEUED') return 'ignored';
  const now = deps.clock.now();
  const reschedule = async (dueAt: number, lastError?: string) =>
    (await move(deps, job, 'SCHEDULED', { set: { dueAt: Math.max(dueAt, now), ...(lastError ? { lastError } : {}) } })) ? 'rescheduled' : 'ignored';
  const cancel = async (reason: string) => ((await move(deps, job, 'CANCELLED', { set: { reason } })) ? 'cancelled' : 'ignored');

  if (await queuePaused(deps)) return reschedule(Number(job.dueAt));
  if (Number(job.dueAt) > now) return reschedule(Number(job.dueAt));

  const campaign = await deps.store.get(campaignKey(String(job.campaignId)));
  if (!campaign || campaign.status === 'ARCHIVED') return cancel('campaign archived');
  if (campaign.status !== 'ACTIVE') return (await move(deps, job, 'PARKED')) ? 'parked' : 'ignored';

  const lead = await deps.store.get(leadKey(String(job.leadId)));
  if (!lead) return cancel('lead deleted');
  if (lead.erased || FINAL.has(String(lead.status))) return cancel(`lead ${String(lead.status).toLowerCase()}`);
  if (await suppression.isSuppressed(deps, String(lead.email))) {
    await suppressEverywhere(deps, String(lead.email));
    return cancel('address suppressed');
  }

  // A free mailbox, or the earliest time one will be.
  let chosen: Item | undefined;
  let waitUntil = now + HOUR;
  const step = Number(job.step);
  const steps = (campaign.steps as { body?: string }[] | undefined) ?? [];
  if (step > 0 && !(steps[step - 1]?.body ?? '').trim()) {
    // The follow-up was removed or emptied after launch: the sequence ends here instead of sending a bare footer.
    await transition(deps, lead, 'COMPLETED');
    return cancel('follow-up removed from the campaign');
  }
  const options = candidates(job, campaign, lead);
  // A first email waits for the campaign to have a mailbox again; a follow-up has no other mailbox to go from.
  if (!options.length) return step === 0 ? reschedule(now + HOUR, 'The campaign has no mailbox to send from.') : cancel('no pinned mailbox');
  for (const mailboxId of options) {
    const mailbox = await deps.store.get(mailboxKey(mailboxId));
    if (!mailbox) {
      if (Number(job.step) > 0) return cancel('pinned mailbox deleted');
      continue;
    }
    if (!SENDING.has(String(mailbox.status)) || (await breaker.isTripped(deps, String(campaign.id), mailboxId))) continue;
    if ((await sentToday(deps, mailboxId)) >= Number(mailbox.dailyCap ?? 25)) {
      waitUntil = Math.min(waitUntil, nextUtcDay(now));
      continue;
    }
    const slot = Number(mailbox.nextSlotAt ?? 0);
    if (slot > now) {
      waitUntil = Math.min(waitUntil, slot);
      continue;
    }
    chosen = mailbox;
    break;
  }
  if (!chosen) return reschedule(waitUntil);

  const domain = await deps.store.get(domainKey(String(chosen.domainId)));
  // Cheap guardrail checks before any paid AI call; composeEmail enforces them again on the copy it builds.
  if (!domain || !String(domain.mailingAddress ?? '').trim()) {
    return reschedule(now + HOUR, 'The sending domain has no mailing address: the email was not sent.');
  }
  if (step === 0 && (!String(campaign.template ?? '').trim() || !String(campaign.subject ?? '').trim())) {
    return reschedule(now + HOUR, 'The first email has no subject or body.');
  }
  let composed;
  try {
    composed = await composeEmail(deps, { campaign, lead, mailbox: chosen, domain, step });
  } catch (err) {
    if (!(err instanceof GuardrailError)) throw err;
    // Refused, not failed: once the address or the link is fixed, the job goes out.
    deps.log.warn('send refused by a guardrail', { jobId: id, rule: err.rule });
    return reschedule(now + HOUR, err.message);
  }
  const transport = await transportFor(deps, chosen);
  if (typeof transport === 'string') {
    await deps.store.update(mailboxKey(String(chosen.id)), { set: { status: 'ERROR', lastError: transport } });
    return reschedule(now, transport);
  }

  // The claim comes first: only the instance that holds the job books the mailbox or moves the job.
  // The claim id makes later writes belong to this claim only (a claim settled as dead and claimed again is another).
  const claimId = randomUUID();
  const claimed = await move(deps, job, 'CLAIMED', {
    set: { mailboxId: chosen.id, messageId: composed.email.messageId, subject: composed.subject, aiGenerated: composed.aiGenerated, claimedAt: now, claimId },
    wallNow: deps.wallClock.now(),
  });
  if (!claimed) return 'ignored';
  // Attempts count SMTP tries only; losing a slot race is not a try.
  const attempts = Number(job.attempts ?? 0) + 1;
  const held = { ...job, state: 'CLAIMED', attempts, claimId };
  const release = async (dueAt: number) => {
    await move(deps, held, 'SCHEDULED', { set: { dueAt: Math.max(dueAt, now) }, remove: ['messageId'] });
    return 'rescheduled' as const;
  };

  if (!(await bookSlot(deps, chosen))) return release(Number((await deps.store.get(mailboxKey(String(chosen.id))))?.nextSlotAt ?? now));
  const day = await bookDailySend(deps, chosen);
  if (!day) return release(nextUtcDay(now));
  // Last look before SMTP: an unsubscribe that landed while the copy was written wins.
  if (await suppression.isSuppressed(deps, String(lead.email))) {
    await refundDailySend(deps, String(chosen.id), day);
    await suppressEverywhere(deps, String(lead.email));
    await move(deps, held, 'CANCELLED', { set: { reason: 'address suppressed' } });
    return 'cancelled';
  }
  // From here the email may leave: a crash after this line is an unknown outcome, never a resend.
  try {
    await deps.store.update(jobKey(id), {
      set: { smtpStartedAt: deps.wallClock.now(), attempts },
      if: { and: [{ attr: 'state', op: '=', value: 'CLAIMED' }, { attr: 'claimId', op: '=', value: claimId }] },
    });
  } catch (err) {
    if (err instanceof ConditionFailedError) {
      await refundDailySend(deps, String(chosen.id), day);
      return 'ignored';
    }
    throw err;
  }

  const result = await deps.mailer.send(transport, composed.email);
  if (result.ok) {
    await recordSent(deps, { job: held, campaign, lead, mailbox: chosen, subject: composed.subject, messageId: composed.email.messageId, aiGenerated: composed.aiGenerated });
    return 'sent';
  }
  return recordFailure(deps, { job: held, campaign, lead, mailbox: chosen, day, result });
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
  const ops: TransactOp[] = [
    ...moveOps(s.job, 'SENT', { set: { sentAt: new Date(now).toISOString(), subject: s.subject, aiGenerated: s.aiGenerated } }),
    {
      update: campaignKey(String(s.campaign.id)),
      change: { add: { [counter.sent]: 1 }, set: { lastActivityAt: new Date(now).toISOString() } },
    },
    {
      update: leadKey(String(s.lead.id)),
      change: {
        set: {
          mailboxId: s.mailbox.id,
          gsi4pk: pinnedLeads(String(s.mailbox.id)),
          gsi4sk: s.lead.id,
          thread: { firstSubject: thread.firstSubject ?? s.subject, messageIds: [...(thread.messageIds ?? []), s.messageId] },
          stepsSent: step + 1,
          lastSentAt: new Date(now).toISOString(),
        },
      },
    },
    ...(next
      ? createJobOps({ leadId: String(s.lead.id), campaignId: String(s.campaign.id), step: step + 1, dueAt: now + next.waitDays * DAY, mailboxId: String(s.mailbox.id) }, now)
      : []),
  ];
  await deps.store.transact(foldCounters(ops));
  // Bookkeeping that may lag without harm: a status move (conditional, counted) and the breaker's send count.
  await transition(deps, { ...s.lead, status: s.lead.status }, next ? 'CONTACTED' : 'COMPLETED');
  await breaker.recordSend(deps, String(s.campaign.id), String(s.mailbox.id));
}

async function recordFailure(
  deps: Deps,
  f: { job: Item; campaign: Item; lead: Item; mailbox: Item; day: string; result: Extract<SendResult, { ok: false }> },
): Promise<SendOutcome> {
  const now = deps.clock.now();
  const { job, result } = f;
  const lastError = `${result.kind}${result.code ? ` ${result.code}` : ''}`;
  deps.log.warn('send failed', { jobId: job.id, mailboxId: f.mailbox.id, kind: result.kind, code: result.code, detail: result.detail });
  switch (result.kind) {
    case 'permanent': {
      // A 5xx at RCPT or DATA is a bounce: the lead stops, the address is suppressed, the breaker counts it.
      await move(deps, job, 'FAILED', { set: { lastError, failedAt: new Date(now).toISOString() } });
      await transition(deps, f.lead, 'BOUNCED');
      await suppression.suppress(deps, String(f.lead.email), 'bounce');
      await suppressEverywhere(deps, String(f.lead.email), String(f.lead.id));
      await breaker.recordSend(deps, String(f.campaign.id), String(f.mailbox.id));
      await breaker.recordBounce(deps, String(f.campaign.id), String(f.mailbox.id));
      return 'bounced';
    }
    case 'unknown': {
      // The server may have taken it: never resent blindly (decisions.md, Exactly once).
      if (filesSentMail(f.mailbox)) {
        // The provider files what it sent: the job stays claimed, and once the claim is old enough
        // for the provider to have filed it, the dispatcher looks in the Sent folder (settleDeadClaims).
        await deps.store.update(jobKey(String(job.id)), { set: { lastError: 'outcome unknown: to be looked up in the Sent folder' } });
        return 'failed';
      }
      await move(deps, job, 'FAILED', { set: { lastError: 'outcome unknown: the connection broke during the send', failedAt: new Date(now).toISOString() } });
      return 'failed';
    }
    case 'auth':
      await deps.store.update(mailboxKey(String(f.mailbox.id)), { set: { status: 'ERROR', lastError: 'The SMTP server refused the sign-in.' } });
      await refundDailySend(deps, String(f.mailbox.id), f.day);
      await move(deps, job, 'SCHEDULED', { set: { dueAt: now, lastError } });
      return 'rescheduled';
    default: {
      await refundDailySend(deps, String(f.mailbox.id), f.day);
      const attempt = Number(job.attempts ?? 1);
      const wait = RETRY_MINUTES[attempt - 1];
      if (wait === undefined) {
        await move(deps, job, 'FAILED', { set: { lastError, failedAt: new Date(now).toISOString() } });
        return 'failed';
      }
      await move(deps, job, 'SCHEDULED', { set: { dueAt: now + wait * 60_000, lastError } });
      return 'rescheduled';
    }
  }
}

/** Providers that file sent mail in the Sent folder themselves, when the engine can read it over IMAP. */
export function filesSentMail(mailbox: Item): boolean {
  return (mailbox.provider === 'GOOGLE' || mailbox.provider === 'MICROSOFT') && Boolean(mailbox.imapHost) && mailbox.auth === 'password';
}

/** The IMAP login of a mailbox (password mailboxes; OAuth comes with the OAuth connection). */
export async function imapLoginFor(deps: Pick<Deps, 'keys'>, mailbox: Item) {
  return {
    host: String(mailbox.imapHost),
    port: Number(mailbox.imapPort ?? 993),
    user: String(mailbox.authUsername ?? mailbox.email),
    pass: await openSecret(deps.keys, String(mailbox.sealedPassword), passwordContext(String(mailbox.id))),
  };
}
