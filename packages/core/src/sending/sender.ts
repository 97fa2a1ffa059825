import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, GuardrailError, TransactionFailedError } from '../errors.ts';
import { withoutAddresses } from '../log.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import type { MailboxTransport, SendResult } from '../ports/mailer.ts';
import * as breaker from '../guardrails/breaker.ts';
import * as suppression from '../suppression/index.ts';
import { domainKey } from '../domain/keys.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { MailboxAccessError, smtpTransport } from '../mailbox/access.ts';
import { canSend, dailyCapOf } from '../mailbox/entity.ts';
import { kindOf } from '../job-kinds.ts';
import { bookDailySend, bookSlot, nextUtcDay, refundDailySend, sentToday } from './cadence.ts';
import type { Composed } from './compose.ts';
import { getJob, move } from './jobs.ts';
import { jobKey, queueSwitchKey } from './keys.ts';
import type { JobControl, SendOutcome, SendPlan } from './send-plan.ts';

export type { SendOutcome } from './send-plan.ts';

const HOUR = 3_600_000;
/** Retries of a temporary failure (4xx, no connection), in engine minutes; then the job fails. */
export const RETRY_MINUTES = [5, 30, 120, 360] as const;

export async function queuePaused(deps: Pick<Deps, 'store'>): Promise<boolean> {
  return Boolean((await deps.store.get(queueSwitchKey))?.paused);
}

/**
 * The one send path: every email the engine sends goes through here, and
 * every guardrail is on it, whatever kind of job it is (send-plan.ts, kinds.ts). In order:
 * the job is still queued; the queue is running; the job's planner says
 * what it is (a campaign step, a placement sample) or why it is not going
 * (each planner refuses a suppressed recipient first, before a slot is
 * booked); a mailbox is free (status, breaker, daily cap, cadence
 * floor plus jitter); the domain has a mailing address; the email is
 * composed (address and unsubscribe guardrails, AI marker, RFC 8058
 * headers); the job is claimed once (conditional write); the mailbox's slot
 * and today's send are booked; a last suppression look; SMTP; the outcome is
 * recorded at once.
 */
export async function sendJob(deps: Deps, id: string): Promise<SendOutcome> {
  const job = await getJob(deps, id);
  if (!job || job.state !== 'QUEUED') return 'ignored';
  const now = deps.clock.now();
  const ctl: JobControl = {
    now,
    reschedule: async (dueAt, lastError) =>
      (await move(deps, job, 'SCHEDULED', { set: { dueAt: Math.max(dueAt, now), ...(lastError ? { lastError } : {}) } })) ? 'rescheduled' : 'ignored',
    cancel: async (reason) => ((await move(deps, job, 'CANCELLED', { set: { reason } })) ? 'cancelled' : 'ignored'),
    park: async () => ((await move(deps, job, 'PARKED')) ? 'parked' : 'ignored'),
  };

  if (await queuePaused(deps)) return ctl.reschedule(Number(job.dueAt));
  if (Number(job.dueAt) > now) return ctl.reschedule(Number(job.dueAt));

  const plan = await kindOf(job).plan(deps, job, ctl);
  if (typeof plan === 'string') return plan;

  // A free mailbox, or the earliest time one will be.
  let chosen: Item | undefined;
  let waitUntil = now + HOUR;
  for (const mailboxId of plan.mailboxIds) {
    const mailbox = await deps.store.get(mailboxKey(mailboxId));
    if (!mailbox) {
      if (plan.pinned) return ctl.cancel('pinned mailbox deleted');
      continue;
    }
    if (!canSend(mailbox)) continue;
    if (plan.breakerCampaignId && (await breaker.isTripped(deps, plan.breakerCampaignId, mailboxId))) continue;
    if ((await sentToday(deps, mailboxId)) >= dailyCapOf(mailbox)) {
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
  if (!chosen) return ctl.reschedule(waitUntil);

  const domain = await deps.store.get(domainKey(String(chosen.domainId)));
  // A cheap guardrail check before any paid AI call; wrapEmail enforces it again on the email it builds.
  if (!domain || !String(domain.mailingAddress ?? '').trim()) {
    return ctl.reschedule(now + HOUR, 'The sending domain has no mailing address: the email was not sent.');
  }
  let composed: Composed;
  try {
    composed = await plan.compose(chosen, domain);
  } catch (err) {
    if (!(err instanceof GuardrailError)) throw err;
    // Refused, not failed: once the address or the link is fixed, the job goes out.
    deps.log.warn('send refused by a guardrail', { jobId: id, rule: err.rule });
    return ctl.reschedule(now + HOUR, err.message);
  }
  let transport: MailboxTransport;
  try {
    transport = await smtpTransport(deps, chosen);
  } catch (err) {
    if (!(err instanceof MailboxAccessError)) throw err;
    // The mailbox cannot sign in (no password, a revoked OAuth grant): it shows ERROR until its owner fixes it.
    await deps.store.update(mailboxKey(String(chosen.id)), { set: { status: 'ERROR', lastError: err.message } });
    return ctl.reschedule(now, err.message);
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
  // The guardrail every send passes, whatever its planner checked: an unsubscribe that landed while the
  // copy was written (or while the email was queued) wins.
  if (await suppression.isSuppressed(deps, plan.to)) {
    await refundDailySend(deps, String(chosen.id), day);
    await plan.onSuppressed();
    await move(deps, held, 'CANCELLED', { set: { reason: 'address suppressed' } });
    return 'cancelled';
  }
  // From here the email may leave: a crash after this line is an unknown outcome, never a resend.
  // The plan's guard is checked in the same write: a reply or bounce read while the copy was written wins.
  const started: TransactOp = {
    update: jobKey(id),
    change: {
      set: { smtpStartedAt: deps.wallClock.now(), attempts },
      if: { and: [{ attr: 'state', op: '=', value: 'CLAIMED' }, { attr: 'claimId', op: '=', value: claimId }] },
    },
  };
  try {
    if (plan.guard) await deps.store.transact([started, { check: plan.guard.key, if: plan.guard.if }]);
    else await deps.store.update(started.update, started.change);
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    await refundDailySend(deps, String(chosen.id), day);
    if (err instanceof TransactionFailedError && err.failed.includes(1) && !err.failed.includes(0)) {
      await move(deps, held, 'CANCELLED', { set: { reason: plan.guard!.reason } });
      return 'cancelled';
    }
    return 'ignored';
  }

  const result = await deps.mailer.send(transport, composed.email);
  if (result.ok) {
    await plan.recordSent(held, chosen, composed);
    return 'sent';
  }
  return recordFailure(deps, { held, plan, mailbox: chosen, day, result });
}

/** What a failed SMTP try means: the plan decides for a bounce and an unknown outcome, the rest is the same for every kind. */
async function recordFailure(
  deps: Deps,
  f: { held: Item; plan: SendPlan; mailbox: Item; day: string; result: Extract<SendResult, { ok: false }> },
): Promise<SendOutcome> {
  const now = deps.clock.now();
  const { held: job, result } = f;
  const lastError = `${result.kind}${result.code ? ` ${result.code}` : ''}`;
  deps.log.warn('send failed', { jobId: job.id, mailboxId: f.mailbox.id, kind: result.kind, code: result.code, detail: withoutAddresses(result.detail) });
  switch (result.kind) {
    case 'permanent':
      await f.plan.recordBounce(job, f.mailbox, lastError);
      return 'bounced';
    case 'unknown':
      await f.plan.recordUnknown(job, f.mailbox);
      return 'failed';
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
