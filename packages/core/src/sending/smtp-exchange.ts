/**
 * The SMTP exchange of a claimed send: the mark of its start, the turns that
 * keep a crash from losing more than one email, and the hand-over to the
 * outcome (outcome.ts).
 */
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import type { MailboxTransport } from '../ports/mailer.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { refundDailySend } from './cadence.ts';
import type { Claim, Held } from './claim.ts';
import type { Composed } from './compose.ts';
import type { Job } from './job.entity.ts';
import { jobKey } from './keys.ts';
import { accepted, recordAccepted, recordFailure } from './outcome.ts';
import type { SendOutcome, SendPlan } from './job-kind.ts';
import type { SendWindow } from './due.ts';

/**
 * Sends, marking the start of SMTP only once the server has accepted DATA
 * and before any byte of the message goes (the mailer's beforeMessage), and
 * records the outcome at once. A crash before the mark is a send that never
 * happened (the claim is simply due again); after it, only the message's
 * transfer and the record are left, and the outcome is unknown.
 */
export async function startAndSend(
  deps: Deps,
  s: {
    job: Job;
    plan: SendPlan;
    mailbox: Mailbox;
    composed: Composed;
    transport: MailboxTransport;
    claim: Exclude<Claim, string>;
    open: SendWindow | undefined;
  },
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
        if: {
          and: [
            { attr: 'state', op: '=', value: 'CLAIMED' },
            { attr: 'claimId', op: '=', value: claimId },
          ],
        },
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
  const result = await inTurn(deps, `smtp:${s.mailbox.id}`, () =>
    deps.mailer.send(s.transport, s.composed.email, { beforeMessage }).finally(transfer.leave),
  );
  if (mark.error) throw mark.error;
  if (mark.state === 'lost') {
    // Settled by someone else meanwhile (a recovery that took this claim for dead): not ours to send, and nothing went.
    await refundDailySend(deps, s.mailbox.id, day);
    return 'ignored';
  }
  if (result.ok) {
    await accepted(deps, () => recordAccepted(deps, () => s.plan.recordSent(held, s.mailbox, s.composed), held));
    return 'sent';
  }
  return recordFailure(deps, { held, plan: s.plan, mailbox: s.mailbox, composed: s.composed, day, result, open: s.open });
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
        // Not awaited: the turn is held in the background until leave() or the hold ends; its work cannot throw.
        void inTurn(deps, 'transfer', async () => {
          entered();
          await Promise.race([left, new Promise<void>((r) => (timer = setTimeout(r, TRANSFER_HOLD_MS)))]);
          clearTimeout(timer);
        });
      }),
    leave: () => leave(),
  };
}

const turns = new WeakMap<object, Map<string, Promise<unknown>>>();

/** Runs `work` after every earlier work of this turn (a mailbox's) in this process has finished (per mailer, so engines never share turns). */
export async function inTurn<T>(deps: Pick<Deps, 'mailer'>, turn: string, work: () => Promise<T>): Promise<T> {
  let byTurn = turns.get(deps.mailer);
  if (!byTurn) turns.set(deps.mailer, (byTurn = new Map()));
  const before = byTurn.get(turn) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.catch(() => undefined);
  byTurn.set(turn, settled);
  // Not awaited: settled never rejects, and this only forgets the turn once nothing follows it.
  void settled.then(() => {
    if (byTurn.get(turn) === settled) byTurn.delete(turn);
  });
  return mine;
}
