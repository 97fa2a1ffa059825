import type { IndexQuery, Key } from '../ports/store.ts';

/** A webhook: one item; every webhook: gsi1 `WEBHOOKS` by `<createdAt>#<id>`. */
export const webhookKey = (id: string): Key => ({ pk: `WEBHOOK#${id}`, sk: 'WEBHOOK' });
export const allWebhooks = (): IndexQuery => ({ index: 'gsi1', pk: 'WEBHOOKS' });
/** How many webhooks there are, moved in the transaction that adds or removes one, so the cap holds against concurrent adds. */
export const webhookCountKey: Key = { pk: 'COUNTER', sk: 'WEBHOOKS' };

/**
 * One event for one webhook (the outbox item): beside its webhook, so a
 * webhook's deliveries are one partition; newest first: gsi2
 * `WEBHOOK#<id>#DELIVERIES` by `<createdAt>#<eventId>`; not yet delivered
 * nor given up: gsi3 `WEBHOOKS#PENDING` by `<dueAt>#<webhookId>#<eventId>`
 * (removed when it ends, so the index holds only what is owed).
 */
export const deliveryKey = (webhookId: string, eventId: string): Key => ({ pk: `WEBHOOK#${webhookId}`, sk: `DELIVERY#${eventId}` });
export const deliveriesOf = (webhookId: string): IndexQuery => ({ index: 'gsi2', pk: `WEBHOOK#${webhookId}#DELIVERIES` });
export const pendingDeliveries = (): IndexQuery => ({ index: 'gsi3', pk: 'WEBHOOKS#PENDING' });

/** Sort key in the pending index: engine time zero-padded, so text order is time order. */
export const pendingSk = (dueAt: number, webhookId: string, eventId: string) =>
  `${String(dueAt).padStart(15, '0')}#${webhookId}#${eventId}`;

/** Every event about one lead (gsi1 `LEAD#<id>#EVENTS`): erasing the lead finds what its events say of the person. */
export const eventsOfLead = (leadId: string): IndexQuery => ({ index: 'gsi1', pk: `LEAD#${leadId}#EVENTS` });

/** An erased lead's events leave its list (what they said of the person is gone). */
export const withoutLeadEventsIndex = () => ['gsi1pk', 'gsi1sk'];

/** A webhook's index attributes: in the list of every webhook. */
export const webhookIndexes = (createdAt: string, id: string) => ({ gsi1pk: allWebhooks().pk, gsi1sk: `${createdAt}#${id}` });

/** A new outbox item's index attributes: its webhook's deliveries, what is owed (due now), and its lead's events when it is about one. */
export const deliveryIndexes = (d: { webhookId: string; eventId: string; createdAt: string; dueAt: number; leadId?: string }) => ({
  gsi2pk: deliveriesOf(d.webhookId).pk,
  gsi2sk: `${d.createdAt}#${d.eventId}`,
  ...pendingIndex(d.dueAt, d.webhookId, d.eventId),
  ...(d.leadId ? { gsi1pk: eventsOfLead(d.leadId).pk, gsi1sk: `${d.createdAt}#${d.eventId}` } : {}),
});

/** An owed item's place in the pending index, by when it is next due. */
export const pendingIndex = (dueAt: number, webhookId: string, eventId: string) => ({
  gsi3pk: pendingDeliveries().pk,
  gsi3sk: pendingSk(dueAt, webhookId, eventId),
});
/** Delivered or given up: it leaves the pending index. */
export const withoutPendingIndex = () => ['gsi3pk', 'gsi3sk'];
