import type { Deps } from '../deps.ts';
import { GuardrailError } from '../errors.ts';
import { suppressionKey } from '../suppression/keys.ts';
import { addressHash } from '../suppression/index.ts';
import { domainKey } from '../domain/keys.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { MailboxAccessError, smtpTransport } from '../mailbox/access.ts';
import { setMailboxError } from '../mailbox/error-state.ts';
import type { MailboxTransport } from '../ports/mailer.ts';
import type { JobRef } from '../ports/queue.ts';
import { fromItem as mailboxFromItem } from '../mailbox/entity.ts';
import { fromItem as domainFromItem, hasMailingAddress } from '../domain/entity.ts';
import { kindOf, kindOfRef, refOf } from '../job-kinds.ts';
import { nextUtcDay } from './cadence.ts';
import { claimFor } from './claim.ts';
import type { Composed } from './compose.ts';
import { move } from './jobs.ts';
import { openAt } from './due.ts';
import { fromItem, type Job } from './job.entity.ts';
import { chooseSoon } from './mailbox-choice.ts';
import { countError } from './outcome.ts';
import { queueSwitchFromItem } from './queue.entity.ts';
import { jobKey, queueSwitchKey } from './keys.ts';
import { firstReads, mailboxReads, Reads } from './read-batch.ts';
import type { JobControl, SendOutcome } from './job-kind.ts';
import { inTurn, startAndSend } from './smtp-exchange.ts';

export { MAX_SEND_ERRORS, RETRY_MINUTES } from './outcome.ts';
export type { SendOutcome } from './job-kind.ts';

const HOUR = 3_600_000;

/**
 * Wall time a send may need once it starts, by part: the paid AI call (the
 * AI adapter's timeout and retry), and the SMTP exchange with the writes
 * around it (the mailer's phase timeouts). A caller with less time left
 * hands the job back untouched instead of starting it.
 */
export const AI_BUDGET_MS = 35_000;
export const SMTP_BUDGET_MS = 40_000;
/** A slot lost to another sender is looked at again this many times. */
const SHORT_WAITS = 3;

export async function queuePaused(deps: Pick<Deps, 'store'>): Promise<boolean> {
  return queueSwitchFromItem(await deps.store.get(queueSwitchKey)).paused;
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
 * every guardrail is on it, whatever kind of job it is (job-kind.ts).
 * This file runs the steps in order; the mailbox is chosen in
 * mailbox-choice.ts, claimed in claim.ts, sent in smtp-exchange.ts, and the
 * outcome written in outcome.ts. Four store requests on the common path:
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
 *    suppressed (a consistent look at the suppression list, at send time),
 *    and the planner's last condition holds (a reply or stop that landed
 *    while the copy was written wins);
 * 3. SMTP, with its start written once the server has accepted DATA and
 *    before the message goes; a crash after it is an unknown outcome, never a resend;
 * 4. the outcome in one transaction.
 */
export async function sendJob(deps: Deps, id: string, opts: SendOptions = {}): Promise<SendOutcome> {
  if (opts.accepted) return settleAccepted(deps, id, opts.accepted);
  // Jobs planned for one mailbox take turns in this process: a second one reads after the first has
  // booked the slot, instead of both reading it free and one losing the claim.
  const planned = opts.ref?.mailboxId;
  return planned ? inTurn(deps, `plan:${planned}`, () => sendOne(deps, id, opts)) : sendOne(deps, id, opts);
}

async function sendOne(deps: Deps, id: string, opts: SendOptions): Promise<SendOutcome> {
  const now = deps.clock.now();
  const read = new Reads(now);
  const hinted = opts.ref ? kindOfRef(opts.ref) : undefined;
  await read.fetch(deps, firstReads(deps, id, opts.ref, hinted ? hinted.reads(opts.ref!) : [], now));
  const item = read.get(jobKey(id));
  // Looked at as stored first: a job that is not queued is left alone, whatever else its row holds.
  if (!item || item.state !== 'QUEUED') return 'ignored';
  const job = fromItem(item);
  try {
    return await sendRead(deps, job, read, opts, now);
  } catch (err) {
    if (!(err instanceof HandBack)) await countError(deps, job, err);
    throw err;
  }
}

async function sendRead(deps: Deps, job: Job, read: Reads, opts: SendOptions, at: number): Promise<SendOutcome> {
  let now = at;
  const id = job.id;
  const kind = kindOf(job);
  const ref = refOf(job);
  // A message without ids (queued by an older version) or with stale ones: what is missing, in one more batch.
  await read.fetch(deps, [
    ...kind.reads(ref),
    ...(ref.mailboxId ? mailboxReads(deps, ref.mailboxId, read.at, ref.campaignId, ref.domainId) : []),
  ]);

  // AI copy is kept with the job, whatever happens next: a retry never pays the provider twice.
  let keep: { aiBody?: string; aiVariant?: number } = {};
  const ctl: JobControl = {
    now,
    reschedule: async (dueAt, lastError) =>
      (await move(deps, job, 'SCHEDULED', {
        due: { at: dueAt, now, open: ctl.open },
        set: { ...keep, ...(lastError ? { lastError } : {}) },
      }))
        ? 'rescheduled'
        : 'ignored',
    cancel: async (reason) => ((await move(deps, job, 'CANCELLED', { set: { reason } })) ? 'cancelled' : 'ignored'),
    park: async () => ((await move(deps, job, 'PARKED')) ? 'parked' : 'ignored'),
  };

  // A paused queue holds campaign mail, not a person's answer (job-kind.ts, unthrottled).
  if (!kind.unthrottled && queueSwitchFromItem(read.get(queueSwitchKey)).paused) return ctl.reschedule(job.dueAt);
  if (job.dueAt > now) return ctl.reschedule(job.dueAt);

  const planned = await kind.plan(deps, job, read, ctl);
  if (typeof planned === 'string') return planned;
  let plan = planned;

  // A job that waits, or is about to cost a paid AI call, looks at the suppression list first: a suppressed
  // address ends there. A job that goes has the same look in its claim.
  const suppressedNow = async () => Boolean(await deps.store.get(suppressionKey(await addressHash(deps, plan.to))));
  const endSuppressed = async () => {
    await plan.onSuppressed();
    return ctl.cancel('address suppressed');
  };
  const unlessSuppressed = async (outcome: () => Promise<SendOutcome>) => ((await suppressedNow()) ? endSuppressed() : outcome());

  let composed: Composed | undefined;
  let composedFor = '';
  for (let round = 0; ; round++) {
    const chosen = await chooseSoon(
      deps,
      plan,
      read,
      (wallMs) => !(opts.timeLeft && opts.timeLeft() < wallMs + SMTP_BUDGET_MS),
      kind.unthrottled,
    );
    now = deps.clock.now();
    if ('cancel' in chosen) return ctl.cancel(chosen.cancel);
    if ('waitUntil' in chosen) return unlessSuppressed(() => ctl.reschedule(chosen.waitUntil));
    const { mailbox } = chosen;

    const domain = read.parsed(domainKey(mailbox.domainId), domainFromItem);
    // A cheap guardrail check before any paid AI call; wrapEmail enforces it again on the email it builds.
    if (!domain || !hasMailingAddress(domain)) {
      return unlessSuppressed(() => ctl.reschedule(now + HOUR, 'The sending domain has no mailing address: the email was not sent.'));
    }
    const paid = plan.paid && !keep.aiBody;
    if (opts.timeLeft && opts.timeLeft() < (paid ? AI_BUDGET_MS : 0) + SMTP_BUDGET_MS) throw new HandBack();
    if (paid && (await suppressedNow())) return endSuppressed();
    if (!composed || composedFor !== mailbox.id) {
      try {
        composed = await plan.compose(mailbox, domain, keep.aiBody);
        composedFor = mailbox.id;
      } catch (err) {
        if (!(err instanceof GuardrailError)) throw err;
        // Refused, not failed: once the address or the link is fixed, the job goes out.
        deps.log.warn('send refused by a guardrail', { jobId: id, rule: err.rule });
        return ctl.reschedule(now + HOUR, err.message);
      }
      if (composed.aiGenerated && composed.aiBody)
        keep = { aiBody: composed.aiBody, ...(plan.copyVariant !== undefined ? { aiVariant: plan.copyVariant } : {}) };
    }

    let transport: MailboxTransport;
    try {
      transport = await smtpTransport(deps, mailbox);
    } catch (err) {
      if (!(err instanceof MailboxAccessError)) throw err;
      // The mailbox cannot sign in (no password, a revoked OAuth grant): it shows ERROR until its owner fixes it.
      await setMailboxError(deps, mailbox, err.message);
      return ctl.reschedule(now, err.message);
    }
    if (opts.timeLeft && opts.timeLeft() < SMTP_BUDGET_MS) throw new HandBack();

    // The window is looked at again at the send itself (copy written by a slow AI call, a mailbox's slot waited
    // for): an email never starts after its window closed; it waits for the next opening. Its Date is this moment.
    now = deps.clock.now();
    if (!openAt(ctl.open, now)) return unlessSuppressed(() => ctl.reschedule(now));
    composed = { ...composed, email: { ...composed.email, date: now } };
    const claim = await claimFor(deps, { job, plan, mailbox, composed, keep, unthrottled: kind.unthrottled });
    if (claim === 'lost') return 'ignored';
    if (claim === 'guard') return ctl.cancel(plan.guard!.reason);
    if (claim === 'suppressed') return endSuppressed();
    if (claim === 'breaker') return ctl.reschedule(now);
    if (claim === 'cap') return ctl.reschedule(nextUtcDay(now));
    if (claim === 'slot') {
      // Another send took the mailbox's slot since the read: look again (another mailbox, or a short wait).
      await read.again(deps, mailboxReads(deps, mailbox.id, read.at, plan.breakerCampaignId));
      if (round < SHORT_WAITS) continue;
      return ctl.reschedule(read.parsed(mailboxKey(mailbox.id), mailboxFromItem)?.nextSlotAt ?? now);
    }
    if (claim === 'balance') {
      // Other first emails of the campaign were given variants since the read: read it again and choose again.
      await read.again(deps, kind.reads(ref));
      const again = await kind.plan(deps, job, read, ctl);
      if (typeof again === 'string') return again;
      plan = again;
      composed = undefined;
      if (keep.aiBody && keep.aiVariant !== plan.copyVariant) keep = {};
      if (round < SHORT_WAITS + 3) continue;
      return ctl.reschedule(now);
    }
    return startAndSend(deps, { job, plan, mailbox, composed, transport, claim, open: ctl.open });
  }
}

/** A queued acceptance (recordAccepted): the job, still held by that claim, is recorded as sent. */
async function settleAccepted(deps: Deps, id: string, claimId: string): Promise<SendOutcome> {
  const item = await deps.store.get(jobKey(id));
  if (!item || item.state !== 'CLAIMED' || item.claimId !== claimId) return 'ignored';
  const job = fromItem(item);
  await kindOf(job).settleSent(deps, job);
  return 'sent';
}
