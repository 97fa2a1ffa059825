import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { dailyCapKey } from './keys.ts';
import { dailyCapOf, type Mailbox } from '../mailbox/entity.ts';
import { dailySendsFromItem } from './queue.entity.ts';

/** docs/sending.md, Cadence: at least 480 s between the starts of two sends from one mailbox. */
export const CADENCE_FLOOR_SECONDS = 480;
/** Plus a jitter drawn uniformly from 0 to this many seconds (docs/sending.md). */
export const JITTER_SECONDS = 120;

const DAY_MS = 86_400_000;
export const nextUtcDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;

/** Sends of the mailbox today. A read that fails throws: the cap fails closed. */
export async function sentToday(deps: Pick<Deps, 'store' | 'clock'>, mailboxId: string): Promise<number> {
  return dailySendsFromItem(await deps.store.get(dailyCapKey(mailboxId, utcDay(deps.clock.now())))).count;
}

/**
 * Books the mailbox's next send slot: succeeds only when its previous slot
 * has passed, and moves it cadence floor plus jitter ahead. A conditional
 * update, so two sender instances can never book the same slot.
 */
export async function bookSlot(deps: Pick<Deps, 'store' | 'clock' | 'random'>, mailbox: Pick<Mailbox, 'id'>): Promise<boolean> {
  const now = deps.clock.now();
  const gap = (CADENCE_FLOOR_SECONDS + deps.random() * JITTER_SECONDS) * 1000;
  try {
    await deps.store.update(mailboxKey(mailbox.id), {
      set: { nextSlotAt: Math.floor(now + gap), lastSendStartedAt: now },
      if: { and: [{ itemExists: true }, { or: [{ attr: 'nextSlotAt', exists: false }, { attr: 'nextSlotAt', op: '<=', value: now }] }] },
    });
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** Counts one send against today's cap, only while under it (conditional ADD). Returns the day booked, or false. */
export async function bookDailySend(deps: Pick<Deps, 'store' | 'clock'>, mailbox: Mailbox): Promise<string | false> {
  const cap = dailyCapOf(mailbox);
  const day = utcDay(deps.clock.now());
  try {
    await deps.store.update(dailyCapKey(mailbox.id, day), {
      add: { count: 1 },
      if: { or: [{ attr: 'count', exists: false }, { attr: 'count', op: '<', value: cap }] },
    });
    return day;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** Gives back a booked send that never reached the recipient's server (a retry, a lost claim). */
export async function refundDailySend(deps: Pick<Deps, 'store'>, mailboxId: string, day: string): Promise<void> {
  await deps.store.update(dailyCapKey(mailboxId, day), { add: { count: -1 } });
}
