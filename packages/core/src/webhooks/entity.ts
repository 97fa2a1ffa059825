/** Stored webhooks and their deliveries: one shape each, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';

/** The signing secret is sealed (context `webhook-signing-secret`, bound to the webhook) and shown only when created. */
export const Webhook = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  sealedSecret: z.string(),
  createdAt: z.string(),
});
export type Webhook = z.infer<typeof Webhook>;
export const fromItem = (item: Item): Webhook => Webhook.parse(item);

/** One event owed to one webhook: the body is fixed when the event is made, so every attempt sends the same bytes. */
export const Delivery = z.looseObject({
  webhookId: z.string(),
  eventId: z.string(),
  type: z.string(),
  body: z.string(),
  createdAt: z.string(),
  attempts: z.number(),
  /** Engine ms when the next attempt is due. */
  dueAt: z.number(),
  delivered: z.boolean(),
  givenUp: z.boolean().optional(),
  lastStatus: z.number().nullable().optional(),
  lastError: z.string().optional(),
  lastAttemptAt: z.string().optional(),
  /** Wall ms: an attempt is under way until then (a worker that died lets it go when it passes). */
  claimUntil: z.number().optional(),
  /** Wall ms: a queue message for it is on its way until then, so the sweep does not send another. */
  queuedUntil: z.number().optional(),
  /** Epoch seconds: set when it ends (endedExpiry), the table's TTL removes it then. */
  expiresAt: z.number().optional(),
});
export type Delivery = z.infer<typeof Delivery>;
export const deliveryFromItem = (item: Item): Delivery => Delivery.parse(item);

/** Wall time a delivered or given-up event stays in the table (and the deliveries list) before the table's TTL removes it. */
export const KEEP_ENDED_MS = 30 * 86_400_000;
/** The TTL attribute (epoch seconds) an event gets when it ends: delivered, given up, or its webhook gone. */
export const endedExpiry = (wallNow: number) => ({ expiresAt: Math.ceil((wallNow + KEEP_ENDED_MS) / 1000) });
