import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, GuardrailError, TransactionFailedError } from '../errors.ts';
import { withoutAddresses } from '../log.ts';
import { smtpBounce } from './smtp-bounce.ts';
import type { TransactOp } from '../ports/store.ts';
import type { JobRef } from '../ports/queue.ts';
import type { MailboxTransport, SendResult } from '../ports/mailer.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { pairFromItem } from '../guardrails/breaker.entity.ts';
import { suppressionKey } from '../suppression/keys.ts';
import { addressHash } from '../suppression/index.ts';
import { domainKey } from '../domain/keys.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { MailboxAccessError, smtpTransport } from '../mailbox/access.ts';
import { canSend, dailyCapOf, fromItem as mailboxFromItem, type Mailbox } from '../mailbox/entity.ts';
import { fromItem as domainFromItem, hasMailingAddress } from '../domain/entity.ts';
import { kindOf, kindOfRef, refOf } from '../job-kinds.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS, nextUtcDay, refundDailySend } from './cadence.ts';
import type { Composed } from './compose.ts';
import { move, moveOps } from './jobs.ts';
import { fromItem, type Job } from './job.entity.ts';
import { dailySendsFromItem, queueSwitchFromItem } from './queue.entity.ts';
import { dailyCapKey, jobKey, queueSwitchKey } from './keys.ts';
import { firstReads, mailboxReads, Reads, rememberDomain } from './read-batch.ts';
import type { JobControl, SendOutcome, SendPlan } from './job-kind.ts';

export type { SendOutcome } from './job-kind.ts';

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
/** A mailbox slot this close (wall ms) is waited for in the sender; a slot lost to another sender is looked at again SHORT_WAITS times. */
const SHORT_WAIT_MS = 1_000;
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
  await read.fetch(deps, [...kind.reads(ref), ...(ref.mailboxId ? mailboxReads(deps, ref.mailboxId, read.at, ref.campaignId, ref.domainId) : [])]);

  // AI copy is kept with the job, whatever happens next: a retry never pays the provider twice.
  let keep: { aiBody?: string } = {};
  const ctl: JobControl = {
    now,
    reschedule: async (dueAt, lastError) =>
      (await move(deps, job, 'SCHEDULED', { due: { at: dueAt, now }, set: { ...keep, ...(lastError ? { lastError } : {}) } })) ? 'rescheduled' : 'ignored',
    cancel: async (reason) => ((await move(deps, job, 'CANCELLED', { set: { reason } })) ? 'cancelled' : 'ignored'),
    park: async () => ((await move(deps, job, 'PARKED')) ? 'parked' : 'ignored'),
  };

  if (queueSwitchFromItem(read.get(queueSwitchKey)).paused) return ctl.reschedule(job.dueAt);
  if (job.dueAt > now) return ctl.reschedule(job.dueAt);

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

  let composed: Composed | undefined;
  let composedFor = '';
  for (let round = 0; ; round++) {
    const chosen = await chooseSoon(deps, plan, read, opts);
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
      if (composed.aiGenerated && composed.aiBody) keep = { aiBody: composed.aiBody };
    }

    let transport: MailboxTransport;
    try {
      transport = await smtpTransport(deps, mailbox);
    } catch (err) {
      if (!(err instanceof MailboxAccessError)) throw err;
      // The mailbox cannot sign in (no password, a revoked OAuth grant): it shows ERROR until its owner fixes it.
      await deps.store.update(mailboxKey(mailbox.id), { set: { status: 'ERROR', lastError: err.message } });
      return ctl.reschedule(now, err.message);
    }
    if (opts.timeLeft && opts.timeLeft() < SMTP_BUDGET_MS) throw new HandBack();

    const claim = await claimFor(deps, { job, plan, mailbox, composed, keep });
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
    return startAndSend(deps, { job, plan, mailbox, composed, transport, claim });
  }
}

/** How a claim ended: held (the claim's id and the day its send was counted in), or which rule refused it. */
type Claim = { claimId: string; day: string; held: Held } | 'lost' | 'guard' | 'suppressed' | 'breaker' | 'cap' | 'slot';

/** The job as its claim left it. */
type Held = Job & { claimId: string };

/**
 * The claim: one write holding every rule that must still be true, so two
 * senders never both send, and a slot, a cap, a breaker, an unsubscribe or a
 * reply that changed since the read wins.
 */
async function claimFor(deps: Deps, c: { job: Job; plan: SendPlan; mailbox: Mailbox; composed: Composed; keep: { aiBody?: string } }): Promise<Claim> {
  const { job, plan, mailbox, composed } = c;
  const mailboxId = mailbox.id;
  const claimId = randomUUID();
  const now = deps.clock.now();
  const day = utcDay(now);
  const claim = moveOps(job, 'CLAIMED', {
    set: { mailboxId, domainId: mailbox.domainId, messageId: composed.email.messageId, subject: composed.subject, aiGenerated: composed.aiGenerated, claimedAt: now, claimId, attempts: job.attempts + 1, ...c.keep },
    // A held claim is an SMTP try (a lost slot race is not). A mark left by an earlier try (a 4xx, a lost connection) must not make this claim look started.
    remove: ['smtpStartedAt'],
    wallNow: deps.wallClock.now(),
  });
  const rules: [Exclude<Claim, object | 'lost'>, TransactOp][] = [
    [
      'slot',
      {
        update: mailboxKey(mailboxId),
        // The gap runs from the claim, right before SMTP, not from the read: composing may have taken a while.
        change: {
          set: { nextSlotAt: Math.floor(now + (CADENCE_FLOOR_SECONDS + deps.random() * JITTER_SECONDS) * 1000), lastSendStartedAt: now },
          if: { and: [{ itemExists: true }, { or: [{ attr: 'nextSlotAt', exists: false }, { attr: 'nextSlotAt', op: '<=', value: now }] }] },
        },
      },
    ],
    ['cap', { update: dailyCapKey(mailboxId, day), change: { add: { count: 1 }, if: { or: [{ attr: 'count', exists: false }, { attr: 'count', op: '<', value: dailyCapOf(mailbox) }] } } }],
    // The guardrail every send passes, whatever its planner checked: an unsubscribe that landed meanwhile wins.
    ['suppressed', { check: suppressionKey(await addressHash(deps, plan.to)), if: { itemExists: false } }],
  ];
  if (plan.breakerCampaignId) {
    rules.push(['breaker', { check: pairKey(plan.breakerCampaignId, mailboxId), if: { or: [{ attr: 'tripped', exists: false }, { attr: 'tripped', op: '=', value: false }] } }]);
  }
  // The planner's last condition: a reply, bounce or stop that landed while the copy was written wins.
  if (plan.guard) rules.push(['guard', { check: plan.guard.key, if: plan.guard.if }]);
  try {
    await deps.store.transact([...claim, ...rules.map(([, op]) => op)]);
  } catch (err) {
    if (!(err instanceof TransactionFailedError)) throw err;
    if (err.failed.includes(0)) return 'lost';
    // The rule that refused it, in the order above (a refused guard or address first: they end the job).
    const refused = new Set(err.failed.map((i) => rules[i - claim.length]?.[0]));
    for (const rule of ['guard', 'suppressed', 'breaker', 'cap', 'slot'] as const) if (refused.has(rule)) return rule;
    throw err;
  }
  return { claimId, day, held: { ...job, state: 'CLAIMED', claimId, ...c.keep } };
}

/**
 * Sends, marking the start of SMTP only once the server has accepted DATA
 * and before any byte of the message goes (the mailer's beforeMessage), and
 * records the outcome at once. A crash before the mark is a send that never
 * happened (the claim is simply due again); after it, only the message's
 * transfer and the record are left, and the outcome is unknown.
 */
async function startAndSend(
  deps: Deps,
  s: { job: Job; plan: SendPlan; mailbox: Mailbox; composed: Composed; transport: MailboxTransport; claim: Exclude<Claim, string> },
): Promise<SendOutcome> {
  const { claimId, day } = s.claim;
  // Attempts count SMTP tries only; losing a slot race is not a try.
  const attempts = s.job.attempts + 1;
  const held: Held = { ...s.claim.held, attempts };
  // What the mark did, written by the hook while the mailer runs.
  const mark: { state: 'none' | 'done' | 'lost'; error?: unknown } = { state: 'none' };
  const transfer = transferTurn(deps);
  const beforeMessage = async () => {
    // One message in transfer at a time in this process: a crash can lose at most one email.
    await transfer.enter();
    try {
      // From here the email may leave: a crash after this write is an unknown outcome, never a resend.
      await deps.store.update(jobKey(s.job.id), {
        set: { smtpStartedAt: deps.wallClock.now() },
        if: { and: [{ attr: 'state', op: '=', value: 'CLAIMED' }, { attr: 'claimId', op: '=', value: claimId }] },
      });
      mark.state = 'done';
    } catch (err) {
      if (err instanceof ConditionFailedError) mark.state = 'lost';
      else mark.error = err;
      throw err;
    }
  };
  // One SMTP exchange at a time per mailbox (its connection is one): a crash leaves at most one send per mailbox
  // with an unknown outcome, the others simply due again.
  const result = await inTurn(deps, `smtp:${s.mailbox.id}`, () => deps.mailer.send(s.transport, s.composed.email, { beforeMessage }).finally(transfer.leave));
  if (mark.error) throw mark.error;
  if (mark.state === 'lost') {
    // Settled by someone else meanwhile (a recovery that took this claim for dead): not ours to send, and nothing went.
    await refundDailySend(deps, s.mailbox.id, day);
    return 'ignored';
  }
  if (result.ok) {
    deps.metrics.count('EmailsSent');
    await recordAccepted(deps, () => s.plan.recordSent(held, s.mailbox, s.composed), held);
    return 'sent';
  }
  return recordFailure(deps, { held, plan: s.plan, mailbox: s.mailbox, composed: s.composed, day, result });
}

/** A message's transfer holds the process's turn at most this long (wall ms): a slow server must not stall every mailbox. */
const TRANSFER_HOLD_MS = 2_000;

/**
 * The process-wide turn for the part of a send where a crash loses the
 * email: from the mark of the start of SMTP to the server's answer to the
 * message. Sends from many mailboxes run at once, but only one is in that
 * part at a time (it lasts about a millisecond), so a crash leaves at most
 * one email missing; the others are either not started (sent again) or
 * answered (taken as sent, and they went). A turn is let go after
 * TRANSFER_HOLD_MS whatever the server does.
 */
function transferTurn(deps: Pick<Deps, 'mailer'>): { enter(): Promise<void>; leave(): void } {
  let leave: () => void = () => undefined;
  const left = new Promise<void>((r) => (leave = r));
  let timer: NodeJS.Timeout | undefined;
  return {
    enter: () =>
      new Promise<void>((entered) => {
        void inTurn(deps, 'transfer', async () => {
          entered();
          await Promise.race([left, new Promise<void>((r) => (timer = setTimeout(r, TRANSFER_HOLD_MS)))]);
          clearTimeout(timer);
        });
      }),
    leave: () => leave(),
  };
}

/**
 * chooseMailbox, waiting in the sender for a slot that frees within a
 * moment of wall time (a high TIME_SCALE) rather than going to the other
 * mailboxes or round the dispatcher and the queue, which would take longer
 * than the wait itself. The claim checks the slot again.
 */
async function chooseSoon(deps: Deps, plan: SendPlan, read: Reads, opts: SendOptions): Promise<Choice> {
  const soon = (slot: number) => {
    const wallMs = (slot - deps.clock.now()) / deps.config.timeScale;
    return wallMs <= SHORT_WAIT_MS && !(opts.timeLeft && opts.timeLeft() < wallMs + SMTP_BUDGET_MS) ? wallMs : undefined;
  };
  const chosen = await chooseMailbox(deps, plan, read, deps.clock.now(), soon);
  if ('mailbox' in chosen && chosen.wait) await new Promise((r) => setTimeout(r, Math.ceil(chosen.wait!)));
  return chosen;
}

const turns = new WeakMap<object, Map<string, Promise<unknown>>>();

/** Runs `work` after every earlier work of this turn (a mailbox's) in this process has finished (per mailer, so engines never share turns). */
async function inTurn<T>(deps: Pick<Deps, 'mailer'>, turn: string, work: () => Promise<T>): Promise<T> {
  let byTurn = turns.get(deps.mailer);
  if (!byTurn) turns.set(deps.mailer, (byTurn = new Map()));
  const before = byTurn.get(turn) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.catch(() => undefined);
  byTurn.set(turn, settled);
  void settled.then(() => {
    if (byTurn.get(turn) === settled) byTurn.delete(turn);
  });
  return mine;
}

/** A mailbox to send from (after `wait` wall ms, when its slot frees in a moment), the earliest time one will be free, or why the job ends. */
type Choice = { mailbox: Mailbox; wait?: number } | { waitUntil: number } | { cancel: string };

/**
 * A free mailbox among the plan's, or the earliest time one will be. The
 * first (the planned one) was read with the job; the others only when it is
 * not free, all in one batch.
 */
async function chooseMailbox(deps: Deps, plan: SendPlan, read: Reads, now: number, soon: (slot: number) => number | undefined): Promise<Choice> {
  let waitUntil = now + HOUR;
  for (const [i, mailboxId] of plan.mailboxIds.entries()) {
    await read.fetch(deps, (i === 0 ? [mailboxId] : plan.mailboxIds.slice(i)).flatMap((m) => mailboxReads(deps, m, read.at, plan.breakerCampaignId)));
    const mailbox = read.parsed(mailboxKey(mailboxId), mailboxFromItem);
    if (!mailbox) {
      if (plan.pinned) return { cancel: 'pinned mailbox deleted' };
      continue;
    }
    rememberDomain(deps, mailbox);
    if (!canSend(mailbox)) continue;
    if (plan.breakerCampaignId && pairFromItem(read.get(pairKey(plan.breakerCampaignId, mailboxId))).tripped) continue;
    if (dailySendsFromItem(read.get(dailyCapKey(mailboxId, utcDay(read.at)))).count >= dailyCapOf(mailbox)) {
      waitUntil = Math.min(waitUntil, nextUtcDay(now));
      continue;
    }
    const slot = mailbox.nextSlotAt ?? 0;
    const wait = slot > now ? soon(slot) : 0;
    if (wait === undefined) {
      waitUntil = Math.min(waitUntil, slot);
      continue;
    }
    // Its domain: read with the mailbox when the job named it or this process has seen the mailbox before.
    await read.fetch(deps, [domainKey(mailbox.domainId)]);
    return wait > 0 ? { mailbox, wait } : { mailbox };
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
async function recordAccepted(deps: Deps, record: () => Promise<void>, held: Held): Promise<void> {
  const jobId = held.id;
  for (let i = 0; i < RECORD_PAUSES_MS.length; i++) {
    if (i) await new Promise((r) => setTimeout(r, RECORD_PAUSES_MS[i]));
    try {
      return await record();
    } catch (err) {
      deps.log.warn('could not record an accepted send; trying again', { jobId, attempt: i + 1, err });
      // A try whose answer was lost may have gone through.
      const now = await deps.store.get(jobKey(jobId)).catch(() => undefined);
      if (now?.state === 'SENT') return;
    }
  }
  await deps.queue.enqueue([{ jobId, delayMs: ACCEPTED_RETRY_MS * deps.config.timeScale, accepted: held.claimId }]);
  deps.log.warn('an accepted send could not be recorded yet; its record was queued', { jobId });
}

/** A queued acceptance (recordAccepted): the job, still held by that claim, is recorded as sent. */
async function settleAccepted(deps: Deps, id: string, claimId: string): Promise<SendOutcome> {
  const item = await deps.store.get(jobKey(id));
  if (!item || item.state !== 'CLAIMED' || item.claimId !== claimId) return 'ignored';
  const job = fromItem(item);
  await kindOf(job).settleSent(deps, job);
  return 'sent';
}

/**
 * A send that threw (not a refusal or an SMTP answer: a secret that cannot be
 * opened, a store that refuses) counts against the job; after
 * MAX_SEND_ERRORS it fails for good with the reason, instead of coming back
 * from the queue forever.
 */
async function countError(deps: Deps, job: Job, err: unknown): Promise<void> {
  const reason = err instanceof Error && err.message ? err.message : 'an unexpected error';
  const errors = (job.sendErrors ?? 0) + 1;
  deps.metrics.count('SendErrors');
  try {
    if (errors >= MAX_SEND_ERRORS) {
      await move(deps, job, 'FAILED', {
        set: { sendErrors: errors, lastError: `gave up after ${errors} failed tries: ${reason}`, failedAt: new Date(deps.clock.now()).toISOString() },
      });
    } else {
      await deps.store.update(jobKey(job.id), { set: { sendErrors: errors, lastError: reason }, if: { attr: 'state', op: '=', value: 'QUEUED' } });
    }
  } catch (e) {
    // The store itself may be what failed: the queue brings the message back, and it is counted then.
    deps.log.warn('could not count a failed send try', { jobId: job.id, err: e });
  }
}

/** What a failed SMTP try means: the plan decides for a bounce and an unknown outcome, the rest is the same for every kind. */
async function recordFailure(
  deps: Deps,
  f: { held: Held; plan: SendPlan; mailbox: Mailbox; composed: Composed; day: string; result: Extract<SendResult, { ok: false }> },
): Promise<SendOutcome> {
  const now = deps.clock.now();
  const { held: job, result } = f;
  const lastError = `${result.kind}${result.code ? ` ${result.code}` : ''}`;
  deps.log.warn('send failed', { jobId: job.id, mailboxId: f.mailbox.id, kind: result.kind, code: result.code, detail: withoutAddresses(result.detail) });
  switch (result.kind) {
    case 'permanent': {
      const bounce = smtpBounce(result.code, result.detail);
      if (bounce.hard) {
        await f.plan.recordBounce(job, f.mailbox, lastError, bounce);
        return 'bounced';
      }
      // A 5xx for a cause that is not the address's (a full mailbox, a rate limit, the sending host's
      // reputation): nothing is suppressed and the send is tried again later, like a 4xx.
      return retryLater(deps, f, `${lastError} (${bounce.reason})`);
    }
    case 'unknown':
      await f.plan.recordUnknown(job, f.mailbox, f.composed);
      return 'unconfirmed';
    case 'auth':
      await deps.store.update(mailboxKey(f.mailbox.id), { set: { status: 'ERROR', lastError: 'The SMTP server refused the sign-in.' } });
      await refundDailySend(deps, f.mailbox.id, f.day);
      await move(deps, job, 'SCHEDULED', { due: { at: now, now }, set: { lastError } });
      return 'rescheduled';
    default:
      return retryLater(deps, f, lastError);
  }
}

/** A send that may go later: tried again after 5, 30, 120 and 360 engine minutes, then FAILED. */
async function retryLater(deps: Deps, f: { held: Held; mailbox: Mailbox; day: string }, lastError: string): Promise<SendOutcome> {
  const now = deps.clock.now();
  const job = f.held;
  await refundDailySend(deps, f.mailbox.id, f.day);
  const wait = RETRY_MINUTES[job.attempts - 1];
  if (wait === undefined) {
    await move(deps, job, 'FAILED', { set: { lastError, failedAt: new Date(now).toISOString() } });
    return 'failed';
  }
  await move(deps, job, 'SCHEDULED', { due: { at: now + wait * 60_000, now }, set: { lastError } });
  return 'rescheduled';
}
