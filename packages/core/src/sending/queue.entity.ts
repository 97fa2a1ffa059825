/**
 * The send path's own small items: the install-wide queue switch and a
 * mailbox's sends of one day. Both may be missing (never paused, nothing
 * sent yet), which reads as running and zero.
 */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';

/** POST /v1/queue/pause writes it (queueSwitchKey). */
export const QueueSwitch = z.looseObject({
  paused: z.boolean().default(false),
  changedAt: z.string().optional(),
  /** false from a pause until each running campaign's campaign.paused event is written (the webhooks schedule finishes a pause a crash cut short). */
  announced: z.boolean().optional(),
});
export type QueueSwitch = z.infer<typeof QueueSwitch>;

export const queueSwitchFromItem = (item: Item | undefined): QueueSwitch => QueueSwitch.parse(item ?? {});

/** The daily cap's counter (dailyCapKey): an atomic ADD at each claim, and a refund when a send does not go. */
export const DailySends = z.looseObject({
  count: z.number().default(0),
});
export type DailySends = z.infer<typeof DailySends>;

export const dailySendsFromItem = (item: Item | undefined): DailySends => DailySends.parse(item ?? {});
