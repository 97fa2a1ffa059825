import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, GuardrailError, TransactionFailedError } from '../errors.ts';
import { withoutAddresses } from '../log.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import type { JobRef } from '../ports/queue.ts';
import type { MailboxTransport, SendResult } from '../ports/mailer.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { suppressionKey } from '../suppression/keys.ts';
import { addressHash } from '../suppression/index.ts';
import { domainKey } from '../domain/keys.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { MailboxAccessError, smtpTransport } from '../mailbox/access.ts';
import { canSend, dailyCapOf } from '../mailbox/entity.ts';
import { kindOf, kindOfRef, refOf } from '../job-kinds.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS, nextUtcDay, refundDailySend } from './cadence.ts';
import type { Composed } from './compose.ts';
import { move, moveOps } from './jobs.ts';
import { dailyCapKey, jobKey, queueSwitchKey } from './keys.ts';
import { firstReads, mailboxReads, Reads, rememberDomain } from './send-reads.ts';
import type { JobControl, SendOutcome, SendPlan } from './send-plan.ts';

export type { SendOutcome } from './send-plan.ts';

const HOUR = 3_600_000;
/** Retries of a temporary failure (4xx, no connection), in engine minutes; then the job fails. */
export const RETRY_MINUTES = [5, 30, 120, 360] as const;
/** A job whose send throws this many times (a secret that cannot be opened, a store that refuses) fails for good. */
export const MAX_SEND_ERRORS = 5;

/**
 * Wall time a send may need once it starts, by part: the paid AI call (the
 * AI adapter's timeout and retry), and the SMTP exchange with the writes
 * around it (the mailer's phase timeouts). A caller with less time left
 * hands the job back untouched instead of starting it.
 */
export const AI_BUDGET_MS = 35_000;
export const SMTP_BUDGET_MS = 40_000;

export async function queuePaused(deps: Pick<Deps, 'store'>): Promise<boolean> {
  return Boolean((await deps.store.get(queueSwitchKey))?.paused);
}

export interface SendOptions {
  /** The ids the queue message carried: with them the job and its context are read in one batch. */
  ref?: JobRef;
  /** The message is an acceptance to record (the claim id that SMTP accepted), not a send. */
  accepted?: string;
  /** Wall milliseconds the caller has left (a Lambda's remaining time). Unbounded when absent. */
  timeLeft?: () => number;
}

/** The caller has too little time left to start this send: nothing was written, and the job is still queued. */
export class HandBack extends Error {
  constructor() {
    super('too little time left to send; handed back untouched');
    this.name = 'HandBack';
  }
}

/**
 * The one send path: every email the engine sends goes through here, and
 * every guardrail is on it, whatever kind of job it is (send-plan.ts, kinds.ts).
 * Four store requests on the common path:
 * 1. one batch read: the job, the queue switch, what the kind's planner
 *    needs, the planned mailbox with today's count, its breaker pair and its
 *    domain. The job must still be queued and the queue running; the planner
 *    says what the job is or why it is not going; a mailbox must be free
 *    (status, breaker, daily cap, cadence floor plus jitter) and its domain
 *    have a mailing address; the email is composed (address and
 *    unsubscribe guardrails, AI marker, RFC 8058 headers);
 * 2. the claim, one transaction holding each of those rules as a condition:
 *    the job is still queued, the mailbox's slot is still free, today's
 *    count is under the cap, the pair is not tripped, the address is not
 *    suppressed (a consistent look at the suppression list, at send time);
 * 3. the start of SMTP, with the planner's last condition (a reply or stop
 *    that landed meanwhile wins); a crash after it is an unknown outcome,
 *    never a resend;
 * 4. SMTP, then the outcome in one transaction.
 */
export async function sendJob(deps: Deps, id: string, opts: SendOptions = {}): Promise<SendOutcome> {
  if (opts.accepted) return settleAccepted(deps, id, opts.accepted);
  const now = deps.clock.now();
  const read = new Reads();
  const hinted = opts.ref ? kindOfRef(opts.ref) : undefined;
  await read.fetch(deps, firstReads(deps, id, opts.ref, hinted ? hinted.reads(opts.ref!) : [], now));
  const job = read.get(jobKey(id));
  if (!job || job.state !== 'QUEUED') return 'ignored';
  try {
    return await sendRead(deps, job, read, opts, now);
  } catch (err) {
    if (!(err instanceof HandBack)) await countError(deps, job, err);
    throw err;
  }
}

async function sendRead(deps: Deps, job: Item, read: Reads, opts: SendOptions, now: number): Promise<SendOutcome> {
  const id = String(job.id);
  const kind = kindOf(job);
  const ref = refOf(job);
  // A message without ids (queued by an older version) or with stale ones: what is missing, in one more batch.
  await read.fetch(deps, [...kind.reads(ref), ...(ref.mailboxId ? mailboxReads(deps, ref.mailboxId, now, ref.campaignId) : [])]);

  const ctl: JobControl = {
    now,
    reschedule: async (dueAt, lastError) =>
      (await move(deps, job, 'SCHEDULED', { set: { dueAt: Math.max(dueAt, now), ...(lastError ? { lastError } : {}) } })) ? 'rescheduled' : 'ignored',
    cancel: async (reason) => ((await move(deps, job, 'CANCELLED', { set: { reason } })) ? 'cancelled' : 'ignored'),
    park: async () => ((await move(deps, job, 'PARKED')) ? 'parked' : 'ignored'),
  };

  if (read.get(queueSwitchKey)?.paused) return ctl.reschedule(Number(job.dueAt));
  if (Number(job.dueAt) > now) return ctl.reschedule(Number(job.dueAt));

  const plan = await kind.plan(deps, job, read, ctl);
  if (typeof plan === 'string') return plan;

  // A job that waits, or is about to cost a paid AI call, looks at the suppression list first: a suppressed
  // address ends there. A job that goes has the same look in its claim.
  const suppressedNow = async () => Boolean(await deps.store.get(suppressionKey(await addressHash(deps, plan.to))));
  const endSuppressed = async () => {
    await plan.onSuppressed();
    return ctl.cancel('address suppressed');
  };
  const unlessSuppressed = async (outcome: () => Promise<SendOutcome>) => ((await suppressedNow()) ? endSuppressed() : outcome());
  const chosen = await chooseMailbox(deps, plan, read, now);
  if ('cancel' in chosen) return ctl.cancel(chosen.cancel);
  if ('waitUntil' in chosen) return unlessSuppressed(() => ctl.reschedule(chosen.waitUntil));
  const { mailbox } = chosen;

  const domain = read.get(domainKey(String(mailbox.domainId)));
  // A cheap guardrail check before any paid AI call; wrapEmail enforces it again on the email it builds.
  if (!domain || !String(domain.mailingAddress ?? '').trim()) {
    return unlessSuppressed(() => ctl.reschedule(now + HOUR, 'The sending domain has no mailing address: the email was not sent.'));
  }
  const budget = (plan.paid ? AI_BUDGET_MS : 0) + SMTP_BUDGET_MS;
  if (opts.timeLeft && opts.timeLeft() < budget) throw new HandBack();
  if (plan.paid && (await suppressedNow())) return endSuppressed();
  let composed: Composed;
  try {
    composed = await plan.compose(mailbox, domain);
  } catch (err) {
    if (!(err instanceof GuardrailError)) throw err;
    // Refused, not failed: once the address or the link is fixed, the job goes out.
    deps.log.warn('send refused by a guardrail', { jobId: id, rule: err.rule });
    return ctl.reschedule(now + HOUR, err.message);
  }
  // AI copy is kept with the job, whatever happens next: a retry never pays the provider twice.
  const keep = composed.aiGenerated && composed.aiBody ? { aiBody: composed.aiBody } : {};
  const later = async (dueAt: number, lastError?: string) =>
    (await move(deps, job, 'SCHEDULED', { set: { dueAt: Math.max(dueAt, now), ...keep, ...(lastError ? { lastError } : {}) } })) ? 'rescheduled' : 'ignored';

  let transport: MailboxTransport;
  try {
    transport = await smtpTransport(deps, mailbox);
  } catch (err) {
    if (!(err instanceof MailboxAccessError)) throw err;
    // The mailbox cannot sign in (no password, a revoked OAuth grant): it shows ERROR until its owner fixes it.
    await deps.store.update(mailboxKey(String(mailbox.id)), { set: { status: 'ERROR', lastError: err.message } });
    return later(now, err.message);
  }
  if (opts.timeLeft && opts.timeLeft() < SMTP_BUDGET_MS) throw new HandBack();

  // The claim: one write holding every rule that must still be true, so two senders never both send,
  // and a slot, a cap or an unsubscribe that changed since the read wins.
  const claimId = randomUUID();
  const claimAt = deps.clock.now();
  const day = utcDay(now);
  const hash = await addressHash(deps, plan.to);
  const claim = moveOps(job, 'CLAIMED', {
    set: { mailboxId: mailbox.id, messageId: composed.email.messageId, subject: composed.subject, aiGenerated: composed.aiGenerated, claimedAt: now, claimId, ...keep },
    wallNow: deps.wallClock.now(),
  });
  const [JOB, SLOT, CAP, SUPPRESSED, BREAKER] = [0, claim.length, claim.length + 1, claim.length + 2, claim.length + 3];
  const claimOps: TransactOp[] = [
    ...claim,
    {
      update: mailboxKey(String(mailbox.id)),
      // The gap runs from the claim, right before SMTP, not from the read: composing may have taken a while.
      change: {
        set: { nextSlotAt: Math.floor(claimAt + (CADENCE_FLOOR_SECONDS + deps.random() * JITTER_SECONDS) * 1000), lastSendStartedAt: claimAt },
        if: { and: [{ itemExists: true }, { or: [{ attr: 'nextSlotAt', exists: false }, { attr: 'nextSlotAt', op: '<=', value: claimAt }] }] },
      },
    },
    {
      update: dailyCapKey(String(mailbox.id), day),
      change: { add: { count: 1 }, if: { or: [{ attr: 'count', exists: false }, { attr: 'count', op: '<', value: dailyCapOf(mailbox) }] } },
    },
    // The guardrail every send passes, whatever its planner checked: an unsubscribe that landed meanwhile wins.
    { check: suppressionKey(hash), if: { itemExists: false } },
    ...(plan.breakerCampaignId
      ? [{ check: pairKey(plan.breakerCampaignId, String(mailbox.id)), if: { or: [{ attr: 'tripped', exists: false }, { attr: 'tripped', op: '=' as const, value: false }] } }]
      : []),
  ];
  try {
    await deps.store.transact(claimOps);
  } catch (err) {
    if (!(err instanceof TransactionFailedError)) throw err;
    if (err.failed.includes(JOB)) return 'ignored';
    if (err.failed.includes(SUPPRESSED)) return endSuppressed();
    if (err.failed.includes(BREAKER)) return later(now);
    if (err.failed.includes(CAP)) return later(nextUtcDay(now));
    if (err.failed.includes(SLOT)) {
      const fresh = await deps.store.get(mailboxKey(String(mailbox.id)));
      return later(Number(fresh?.nextSlotAt ?? now));
    }
    throw err;
  }
  // Attempts count SMTP tries only; losing a slot race is not a try.
  const attempts = Number(job.attempts ?? 0) + 1;
  const held: Item = { ...job, state: 'CLAIMED', attempts, claimId, ...keep };

  // From here the email may leave: a crash after this write is an unknown outcome, never a resend.
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
    await refundDailySend(deps, String(mailbox.id), day);
    if (err instanceof TransactionFailedError && err.failed.includes(1) && !err.failed.includes(0)) {
      await move(deps, held, 'CANCELLED', { set: { reason: plan.guard!.reason } });
      return 'cancelled';
    }
    return 'ignored';
  }

  const result = await deps.mailer.send(transport, composed.email);
  if (result.ok) {
    await recordAccepted(deps, () => plan.recordSent(held, mailbox, composed), held);
    return 'sent';
  }
  return recordFailure(deps, { held, plan, mailbox, day, result });
}

type Choice = { mailbox: Item } | { waitUntil: number } | { cancel: string };

/** A free mailbox among the plan's, or the earliest time one will be. Mailboxes not read yet are read in one batch. */
async function chooseMailbox(deps: Deps, plan: SendPlan, read: Reads, now: number): Promise<Choice> {
  await read.fetch(deps, plan.mailboxIds.flatMap((m) => mailboxReads(deps, m, now, plan.breakerCampaignId)));
  let waitUntil = now + HOUR;
  for (const mailboxId of plan.mailboxIds) {
    const mailbox = read.get(mailboxKey(mailboxId));
    if (!mailbox) {
      if (plan.pinned) return { cancel: 'pinned mailbox deleted' };
      continue;
    }
    rememberDomain(deps, mailbox);
    if (!canSend(mailbox)) continue;
    if (plan.breakerCampaignId && read.get(pairKey(plan.breakerCampaignId, mailboxId))?.tripped) continue;
    if (Number(read.get(dailyCapKey(mailboxId, utcDay(now)))?.count ?? 0) >= dailyCapOf(mailbox)) {
      waitUntil = Math.min(waitUntil, nextUtcDay(now));
      continue;
    }
    const slot = Number(mailbox.nextSlotAt ?? 0);
    if (slot > now) {
      waitUntil = Math.min(waitUntil, slot);
      continue;
    }
    // Its domain: read with the mailbox when this process has seen the mailbox before.
    await read.fetch(deps, [domainKey(String(mailbox.domainId))]);
    return { mailbox };
  }
  return { waitUntil };
}

/** Tries of the record after the SMTP server said yes, and the pause before each (wall ms). */
const RECORD_PAUSES_MS = [0, 100, 400, 1_500];
/** When the store stays down through those, the acceptance goes on the queue and is recorded this much later (wall ms). */
const ACCEPTED_RETRY_MS = 5_000;

/**
 * The server took the email: it must end recorded as sent, whatever the
 * store does for a moment. The record is tried again (its writes are
 * conditioned on the claim, so a retry never counts twice); when the store
 * stays down, the acceptance is put on the send queue, and the sender that
 * receives it records the job as sent from what its claim stored. Only when
 * the queue refuses too does the error go up, and the claim is settled as an
 * unknown outcome: never resent.
 */
async function recordAccepted(deps: Deps, record: () => Promise<void>, held: Item): Promise<void> {
  const jobId = String(held.id);
  for (let i = 0; i < RECORD_PAUSES_MS.length; i++) {
    await new Promise((r) => setTimeout(r, RECORD_PAUSES_MS[i]));
    try {
      return await record();
    } catch (err) {
      deps.log.warn('could not record an accepted send; trying again', { jobId, attempt: i + 1, err });
      // A try whose answer was lost may have gone through.
      const now = await deps.store.get(jobKey(jobId)).catch(() => undefined);
      if (now?.state === 'SENT') return;
    }
  }
  await deps.queue.enqueue([{ jobId, delayMs: ACCEPTED_RETRY_MS * deps.config.timeScale, accepted: String(held.claimId) }]);
  deps.log.warn('an accepted send could not be recorded yet; its record was queued', { jobId });
}

/** A queued acceptance (recordAccepted): the job, still held by that claim, is recorded as sent. */
async function settleAccepted(deps: Deps, id: string, claimId: string): Promise<SendOutcome> {
  const job = await deps.store.get(jobKey(id));
  if (!job || job.state !== 'CLAIMED' || job.claimId !== claimId) return 'ignored';
  await kindOf(job).settleSent(deps, job);
  return 'sent';
}

/**
 * A send that threw (not a refusal or an SMTP answer: a secret that cannot be
 * opened, a store that refuses) counts against the job; after
 * MAX_SEND_ERRORS it fails for good with the reason, instead of coming back
 * from the queue forever.
 */
async function countError(deps: Deps, job: Item, err: unknown): Promise<void> {
  const reason = err instanceof Error && err.message ? err.message : 'an unexpected error';
  const errors = Number(job.sendErrors ?? 0) + 1;
  try {
    if (errors >= MAX_SEND_ERRORS) {
      await move(deps, job, 'FAILED', {
        set: { sendErrors: errors, lastError: `gave up after ${errors} failed tries: ${reason}`, failedAt: new Date(deps.clock.now()).toISOString() },
      });
    } else {
      await deps.store.update(jobKey(String(job.id)), { set: { sendErrors: errors, lastError: reason }, if: { attr: 'state', op: '=', value: 'QUEUED' } });
    }
  } catch (e) {
    // The store itself may be what failed: the queue brings the message back, and it is counted then.
    deps.log.warn('could not count a failed send try', { jobId: job.id, err: e });
  }
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
