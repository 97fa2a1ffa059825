/** The queue's state counters (queueCounterKeys): one shape, read once from each shard. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { stateCounter } from '../sending/keys.ts';

/**
 * A shard of the counters: one atomic count per job state, by the attribute
 * stateCounter names. A state never counted in a shard is absent, and counts 0.
 */
export const QueueCounters = z.record(z.string(), z.unknown()).transform((row) => (state: string): number => {
  const n = row[stateCounter(state)];
  return typeof n === 'number' ? n : 0;
});
export const countersFromItem = (item: Item) => QueueCounters.parse(item);
