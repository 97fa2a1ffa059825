/** A rate-limit window's counter (rateWindowKey): one shape, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';

export const RateWindow = z.looseObject({
  /** Requests counted in the window so far (an atomic ADD). */
  count: z.number().default(0),
  /** Seconds since the epoch: the table's TTL removes the window two windows later. */
  expiresAt: z.number().optional(),
});
export type RateWindow = z.infer<typeof RateWindow>;

export const windowFromItem = (item: Item): RateWindow => RateWindow.parse(item);
