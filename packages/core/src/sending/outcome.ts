/**
 * The outcome of a send: the server took it (counted, then recorded, and
 * retried until it is), it refused it (a bounce, a sign-in refused, a
 * temporary failure retried later), or the send threw (counted against the
 * job until it fails for good).
 */
import type { Deps } from '../deps.ts';
import { withoutAddresses } from '../log.ts';
import type { SendResult } from '../ports/mailer.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { setMailboxError } from '../mailbox/error-state.ts';
import { refundDailySend } from './cadence.ts';
import type { Composed } from './compose.ts';
import type { Held } from './claim.ts';
import { move } from './jobs.ts';
import type { Job } from './job.entity.ts';
import { jobKey } from './keys.ts';
import type { SendOutcome, SendPlan } from './job-kind.ts';
import { smtpBounce } from './smtp-bounce.ts';
import type { SendWindow } from './due.ts';

/** Retries of a temporary failure (4xx, no connection), in engine minutes; then the job fails. */
export const RETRY_MINUTES = [5, 30, 120, 360] as const;
/** A job whose send throws this many times (a secret that cannot be opened, a store that refuses) fails for good. */
export const MAX_SEND_ERRORS = 5;

/**
 * An email the recipient's server took: counted here, once, however that
 * became known (its answer to SMTP, or the Sent folder after an unknown
 * outcome), then recorded.
 */
export async function accepted(deps: Pick<Deps, 'metrics'>, record: () => Promise<unknown>): Promise<void> {
  deps.metrics.count('EmailsSent');
  await record();
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
export async function recordAccepted(deps: Deps, record: () => Promise<void>, held: Held): Promise<void> {
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

/**
 * A send that threw (not a refusal or an SMTP answer: a secret that cannot be
 * opened, a store that refuses) counts against the job; after
 * MAX_SEND_ERRORS it fails for good with the reason, instead of coming back
 * from the queue forever.
 */
export async function countError(deps: Deps, job: Job, err: unknown): Promise<void> {
  const reason = err instanceof Error && err.message ? err.message : 'an unexpected error';
  const errors = (job.sendErrors ?? 0) + 1;
  deps.metrics.count('SendErrors');
  try {
    if (errors >= MAX_SEND_ERRORS) {
      await move(deps, job, 'FAILED', {
        set: {
          sendErrors: errors,
          lastError: `gave up after ${errors} failed tries: ${reason}`,
          failedAt: new Date(deps.clock.now()).toISOString(),
        },
      });
    } else {
      await deps.store.update(jobKey(job.id), {
        set: { sendErrors: errors, lastError: reason },
        if: { attr: 'state', op: '=', value: 'QUEUED' },
      });
    }
  } catch (e) {
    // The store itself may be what failed: the queue brings the message back, and it is counted then.
    deps.log.warn('could not count a failed send try', { jobId: job.id, err: e });
  }
}

/** What a failed SMTP try means: the plan decides for a bounce and an unknown outcome, the rest is the same for every kind. */
export async function recordFailure(
  deps: Deps,
  /** `open`: the lead's window, which a send tried again later waits for. */
  f: {
    held: Held;
    plan: SendPlan;
    mailbox: Mailbox;
    composed: Composed;
    day: string;
    result: Extract<SendResult, { ok: false }>;
    open: SendWindow | undefined;
  },
): Promise<SendOutcome> {
  const now = deps.clock.now();
  const { held: job, result } = f;
  const lastError = `${result.kind}${result.code ? ` ${result.code}` : ''}`;
  deps.log.warn('send failed', {
    jobId: job.id,
    mailboxId: f.mailbox.id,
    kind: result.kind,
    code: result.code,
    detail: withoutAddresses(result.detail),
  });
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
      await setMailboxError(deps, f.mailbox, 'The SMTP server refused the sign-in.');
      await refundDailySend(deps, f.mailbox.id, f.day);
      await move(deps, job, 'SCHEDULED', { due: { at: now, now, open: f.open }, set: { lastError } });
      return 'rescheduled';
    default:
      return retryLater(deps, f, lastError);
  }
}

/** A send that may go later: tried again after 5, 30, 120 and 360 engine minutes, then FAILED. */
async function retryLater(
  deps: Deps,
  f: { held: Held; mailbox: Mailbox; day: string; open: SendWindow | undefined },
  lastError: string,
): Promise<SendOutcome> {
  const now = deps.clock.now();
  const job = f.held;
  await refundDailySend(deps, f.mailbox.id, f.day);
  const wait = RETRY_MINUTES[job.attempts - 1];
  if (wait === undefined) {
    await move(deps, job, 'FAILED', { set: { lastError, failedAt: new Date(now).toISOString() } });
    return 'failed';
  }
  await move(deps, job, 'SCHEDULED', { due: { at: now + wait * 60_000, now, open: f.open }, set: { lastError } });
  return 'rescheduled';
}
