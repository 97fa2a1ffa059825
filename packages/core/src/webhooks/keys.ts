import type { IndexQuery, Key } from '../ports/store.ts';

/** A webhook: one item; every webhook: gsi1 `WEBHOOKS` by `<createdAt>#<id>`. */
export const webhookKey = (id: string): Key => ({ pk: `WEBHOOK#${id}`, sk: 'WEBHOOK' });
export const allWebhooks = (): IndexQuery => ({ index: 'gsi1', pk: 'WEBHOOKS' });

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
export const pendingSk = (dueAt: number, webhookId: string, eventId: string) => `${String(dueAt).padStart(15, '0')}#${webhookId}#${eventId}`;
