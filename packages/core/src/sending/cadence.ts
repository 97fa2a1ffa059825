import type { Deps } from '../deps.ts';
import type { TransactOp } from '../ports/store.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { dailyCapKey } from './keys.ts';
import { dailyCapOf, type Mailbox } from '../mailbox/entity.ts';

/** docs/sending.md, Cadence: at least 480 s between the starts of two sends from one mailbox. */
export const CADENCE_FLOOR_SECONDS = 480;
/** Plus a jitter drawn uniformly from 0 to this many seconds (docs/sending.md). */
export const JITTER_SECONDS = 120;

const DAY_MS = 86_400_000;
export const nextUtcDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;

/**
 * Books the mailbox's next send slot, for the claim's transaction: holds
 * only when its previous slot has passed, and moves it cadence floor plus
 * jitter ahead, so two senders can never book the same slot. The gap runs
 * from the claim, right before SMTP, not from the read: composing may have
 * taken a while.
 */
export function bookSlotOp(mailboxId: string, now: number, random: number): TransactOp {
  return {
    update: mailboxKey(mailboxId),
    change: {
      set: { nextSlotAt: Math.floor(now + (CADENCE_FLOOR_SECONDS + random * JITTER_SECONDS) * 1000), lastSendStartedAt: now },
      if: {
        and: [
          { itemExists: true },
          {
            or: [
              { attr: 'nextSlotAt', exists: false },
              { attr: 'nextSlotAt', op: '<=', value: now },
            ],
          },
        ],
      },
    },
  };
}

/** Counts one send against the mailbox's cap for the day, for the claim's transaction: holds only while under it. */
export function bookDailySendOp(mailbox: Mailbox, day: string): TransactOp {
  return {
    update: dailyCapKey(mailbox.id, day),
    change: {
      add: { count: 1 },
      if: {
        or: [
          { attr: 'count', exists: false },
          { attr: 'count', op: '<', value: dailyCapOf(mailbox) },
        ],
      },
    },
  };
}

/** Counts one send for the day without the cap's condition: a person's answer is counted, never refused. */
export function countDailySendOp(mailboxId: string, day: string): TransactOp {
  return { update: dailyCapKey(mailboxId, day), change: { add: { count: 1 } } };
}

/** Gives back a booked send that never reached the recipient's server (a retry, a lost claim). */
export async function refundDailySend(deps: Pick<Deps, 'store'>, mailboxId: string, day: string): Promise<void> {
  await deps.store.update(dailyCapKey(mailboxId, day), { add: { count: -1 } });
}
