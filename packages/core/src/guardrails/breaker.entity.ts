/** The bounce breaker's stored shapes: a campaign/mailbox pair and its day counts, each read once from its row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';

/**
 * A campaign/mailbox pair's breaker, as stored (pairKey). A pair that never
 * bounced has no item: it reads as untripped, in epoch 0. The counts and
 * ids are written when it trips, for whoever looks at it then.
 */
export const BreakerPair = z.looseObject({
  tripped: z.boolean().default(false),
  /** The window's epoch: a resume starts a new one, so old counts no longer count. */
  epoch: z.number().default(0),
  /** Engine ms of the pair's last bounce; a resume clears it. */
  lastBounceAt: z.number().optional(),
  trippedAt: z.string().optional(),
  sends: z.number().optional(),
  bounces: z.number().optional(),
  campaignId: z.string().optional(),
  mailboxId: z.string().optional(),
});
export type BreakerPair = z.infer<typeof BreakerPair>;

/** The pair's item, or the untripped pair its absence means. */
export const pairFromItem = (item: Item | undefined): BreakerPair => BreakerPair.parse(item ?? {});

/** Sends and bounces of a pair on one day of one epoch (pairDayKey): atomic counters, each missing until first counted. */
export const PairDay = z.looseObject({
  sends: z.number().default(0),
  bounces: z.number().default(0),
});
export type PairDay = z.infer<typeof PairDay>;

export const pairDayFromItem = (item: Item): PairDay => PairDay.parse(item);
