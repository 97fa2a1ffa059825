import type { Deps } from '../deps.ts';
import { campaignKey } from '../campaign/keys.ts';
import { bounceRateThresholdOf, fromItem as campaignFromItem } from '../campaign/entity.ts';
import { queryAll } from '../collections.ts';
import { pairDayKey, pairKey, trippedIndex, trippedPairsOf, withoutTrippedIndex } from './breaker.keys.ts';
import { pairDayFromItem, pairFromItem, type BreakerPair } from './breaker.entity.ts';
import type { TransactOp } from '../ports/store.ts';
import { ConditionFailedError } from '../errors.ts';
import { eventOps } from '../webhooks/events.ts';

/** The fixed minimum of sends before a pair can trip (guardrail 7: docs/sending.md, Bounce circuit breaker). */
export const MIN_SENDS = 20;
/** The rolling window: the pair's sends and bounces of the last 7 days of the engine clock. */
export const WINDOW_DAYS = 7;

type D = Pick<Deps, 'store' | 'clock' | 'metrics' | 'wallClock' | 'log'>;

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function epochOf(deps: Pick<Deps, 'store'>, campaignId: string, mailboxId: string) {
  const pair = pairFromItem(await deps.store.get(pairKey(campaignId, mailboxId)));
  return { tripped: pair.tripped, epoch: pair.epoch };
}

/** Whether this campaign/mailbox pair is paused by the breaker. */
export async function isTripped(deps: Pick<Deps, 'store'>, campaignId: string, mailboxId: string): Promise<boolean> {
  return (await epochOf(deps, campaignId, mailboxId)).tripped;
}

/** Counts one send of the pair, and trips it if its rate is already over (bounces may come first). */
export async function recordSend(deps: D, campaignId: string, mailboxId: string): Promise<boolean> {
  return record(deps, campaignId, mailboxId, 'sends');
}

/**
 * Counts one bounce. Either count may trip the pair: when its rolling bounce
 * rate exceeds the campaign's threshold (default 5 %) after at least 20
 * sends, the pair stops and the campaign shows pausedForBounceRate true.
 * Returns whether this call tripped it.
 */
export async function recordBounce(deps: D, campaignId: string, mailboxId: string): Promise<boolean> {
  return record(deps, campaignId, mailboxId, 'bounces');
}

async function record(deps: D, campaignId: string, mailboxId: string, what: 'sends' | 'bounces'): Promise<boolean> {
  const { epoch, tripped } = await epochOf(deps, campaignId, mailboxId);
  const now = deps.clock.now();
  await deps.store.update(pairDayKey(campaignId, mailboxId, epoch, utcDay(now)), { add: { [what]: 1 } });
  // A send only needs the rate looked at once the pair has bounced (sendCountOp, bouncedLately).
  if (what === 'bounces') await deps.store.update(pairKey(campaignId, mailboxId), { set: { lastBounceAt: now } });
  if (tripped) return false;
  return evaluate(deps, campaignId, mailboxId, epoch);
}

/**
 * The send path's count of one send, for its record transaction: no read,
 * the epoch comes from the pair item the send read before claiming.
 */
export function sendCountOp(campaignId: string, mailboxId: string, pair: BreakerPair, now: number): TransactOp {
  return { update: pairDayKey(campaignId, mailboxId, pair.epoch, utcDay(now)), change: { add: { sends: 1 } } };
}

/**
 * A bounce's counts, for the transaction that records it (lead/facts.ts):
 * one bounce (and its send, for a bounce at SMTP time, which no send record
 * counted) in the epoch of the pair as read, and the time of its last bounce.
 */
export function bounceCountOps(campaignId: string, mailboxId: string, pair: BreakerPair, now: number, withSend: boolean): TransactOp[] {
  return [
    {
      update: pairDayKey(campaignId, mailboxId, pair.epoch, utcDay(now)),
      change: { add: { bounces: 1, ...(withSend ? { sends: 1 } : {}) } },
    },
    { update: pairKey(campaignId, mailboxId), change: { set: { lastBounceAt: now } } },
  ];
}

/** Whether a send must look at the pair's rate: only a pair with a bounce in its window can trip (a send lowers the rate, but may reach MIN_SENDS). */
export function bouncedLately(pair: BreakerPair, now: number): boolean {
  return !pair.tripped && (pair.lastBounceAt ?? 0) > now - WINDOW_DAYS * 86_400_000;
}

/** Trips the pair when its rolling rate is over the campaign's threshold after at least MIN_SENDS sends. Returns whether it tripped it. */
export async function evaluate(deps: D, campaignId: string, mailboxId: string, epoch?: number): Promise<boolean> {
  epoch ??= (await epochOf(deps, campaignId, mailboxId)).epoch;
  const now = deps.clock.now();
  const from = utcDay(now - (WINDOW_DAYS - 1) * 86_400_000);
  const days = await deps.store.query({
    pk: pairKey(campaignId, mailboxId).pk,
    skBetween: [pairDayKey(campaignId, mailboxId, epoch, from).sk, pairDayKey(campaignId, mailboxId, epoch, utcDay(now)).sk],
  });
  const counts = days.items.map(pairDayFromItem);
  const sends = counts.reduce((n, d) => n + d.sends, 0);
  const bounces = counts.reduce((n, d) => n + d.bounces, 0);
  const campaign = await deps.store.get(campaignKey(campaignId));
  const threshold = bounceRateThresholdOf(campaign && campaignFromItem(campaign));
  if (sends < MIN_SENDS || (bounces * 100) / sends <= threshold) return false;
  await deps.store.update(pairKey(campaignId, mailboxId), {
    set: {
      tripped: true,
      trippedAt: new Date(now).toISOString(),
      sends,
      bounces,
      epoch,
      campaignId,
      mailboxId,
      ...trippedIndex(campaignId, mailboxId),
    },
  });
  await pauseForBounceRate(deps, campaignId, now);
  deps.metrics.count('BreakerTrips');
  return true;
}

/** The campaign.paused fact of a trip: the campaign flag turning on, with its event in the same write (none when it was on already). */
async function pauseForBounceRate(deps: D, campaignId: string, now: number): Promise<void> {
  const set = { pausedForBounceRate: true };
  const event = await eventOps(deps, 'campaign.paused', { campaignId, reason: 'breaker' }, `${campaignKey(campaignId).pk}#BREAKER#${now}`);
  if (event.length) {
    const off = {
      or: [
        { attr: 'pausedForBounceRate', exists: false },
        { attr: 'pausedForBounceRate', op: '=' as const, value: false },
      ],
    };
    const done = await deps.store.transact([{ update: campaignKey(campaignId), change: { set, if: off } }, ...event]).then(
      () => true,
      (err: unknown) => {
        if (!(err instanceof ConditionFailedError)) throw err;
        return false;
      },
    );
    if (done) return;
  }
  await deps.store.update(campaignKey(campaignId), { set });
}

/**
 * PATCH pausedForBounceRate false: every tripped pair of the campaign sends
 * again, each with a fresh window (a new epoch), so the bounces that tripped
 * it do not trip it again at the next one.
 */
export async function resume(deps: Pick<Deps, 'store'>, campaignId: string): Promise<void> {
  const pairs = await queryAll(deps.store, trippedPairsOf(campaignId));
  for (const item of pairs) {
    const pair = pairFromItem(item);
    // A tripped pair carries its ids (evaluate writes them with the trip); its key names the mailbox in any case.
    const mailboxId = pair.mailboxId ?? item.pk.slice(pairKey(campaignId, '').pk.length);
    await deps.store.update(pairKey(campaignId, mailboxId), {
      set: { tripped: false, epoch: pair.epoch + 1 },
      remove: [...withoutTrippedIndex(), 'lastBounceAt'],
    });
  }
}
