import type { Deps } from '../deps.ts';
import { RetryLaterError } from '../errors.ts';
import { rateWindowKey } from './keys.ts';
import { windowFromItem } from './entity.ts';

const WINDOW_MS = 60_000;

/**
 * Counts one request of `client` against `bucket` in a fixed one-minute
 * window. The counter is an atomic ADD in the table, so every instance
 * shares it; the item expires by TTL two windows later (bookkeeping, not
 * lead data). Throws RATE_LIMITED with the time left in the window.
 */
export async function hit(deps: Pick<Deps, 'store' | 'wallClock'>, bucket: string, client: string, perMinute: number): Promise<void> {
  const now = deps.wallClock.now();
  const window = Math.floor(now / WINDOW_MS);
  const after = await deps.store.update(rateWindowKey(bucket, client, window), {
    add: { count: 1 },
    set: { expiresAt: Math.ceil(((window + 2) * WINDOW_MS) / 1000) },
  });
  if (windowFromItem(after).count > perMinute) {
    throw new RetryLaterError('RATE_LIMITED', 'Too many requests: wait a moment and try again.', (window + 1) * WINDOW_MS - now);
  }
}
