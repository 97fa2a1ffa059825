/**
 * Making events. An event is written by the transaction of its fact (a send
 * recorded, a reply stored, a bounce applied), as one outbox item per
 * webhook that subscribes to its type: an event exists exactly when its fact
 * does, and its id comes from the fact, so a transaction retried after a
 * crash writes the same id again, never a second one.
 */
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, TransactionFailedError } from '../errors.ts';
import type { Store, TransactOp } from '../ports/store.ts';
import { deliveryFromItem, endedExpiry, fromItem } from './entity.ts';
import { queryAll } from '../collections.ts';
import { allWebhooks, deliveryIndexes, deliveryKey, eventsOfLead, withoutLeadEventsIndex, withoutPendingIndex } from './keys.ts';
import type { EventType } from './webhooks.schema.ts';

/**
 * How long a process trusts its list of subscriptions (wall time). A send
 * reads no webhook: a webhook made or removed in another function is seen by
 * this one within this time (docs/webhooks.md says so).
 */
export const SUBSCRIPTIONS_TTL_MS = 30_000;

interface Subscription {
  id: string;
  events: string[];
}

const cached = new WeakMap<Store, { until: number; value: Promise<Subscription[]> }>();

/** Called by the verbs that add or remove a webhook, so this process sees the change at once. */
export function forgetSubscriptions(store: Store): void {
  cached.delete(store);
}

async function readSubscriptions(store: Store): Promise<Subscription[]> {
  const out: Subscription[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.query({ ...allWebhooks(), cursor });
    out.push(...page.items.map((i) => fromItem(i)).map((w) => ({ id: w.id, events: w.events })));
    cursor = page.cursor;
  } while (cursor);
  return out;
}

export function subscriptions(deps: Pick<Deps, 'store' | 'wallClock'>): Promise<Subscription[]> {
  const now = deps.wallClock.now();
  const hit = cached.get(deps.store);
  if (hit && hit.until > now) return hit.value;
  const value = readSubscriptions(deps.store);
  cached.set(deps.store, { until: now + SUBSCRIPTIONS_TTL_MS, value });
  // A failed read is not remembered: the next fact asks again.
  value.catch(() => cached.delete(deps.store));
  return value;
}

/** `evt_` and 26 hex digits of a hash of the type and the fact's own key: the same fact always gives the same id. */
export function eventIdOf(type: EventType, factKey: string): string {
  return `evt_${createHash('sha256').update(`${type}\u0000${factKey}`).digest('hex').slice(0, 26)}`;
}

/**
 * The store operations that make one event, for the caller to put in its
 * fact's own transaction: none when no webhook subscribes to the type.
 * `factKey` names the fact once and for all (the job of a send, the stored
 * inbound message of a reply), never something a retry would change.
 */
export async function eventOps(
  deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>,
  type: EventType,
  data: Record<string, unknown>,
  factKey: string,
): Promise<TransactOp[]> {
  let subs: Subscription[];
  try {
    subs = await subscriptions(deps);
  } catch (err) {
    // The fact matters more than its event: it is recorded without one rather than not at all.
    deps.log.error('webhooks: subscriptions unreadable, an event is not made', { type, err });
    return [];
  }
  const to = subs.filter((s) => s.events.includes('*') || s.events.includes(type));
  if (to.length === 0) return [];
  const id = eventIdOf(type, factKey);
  const now = deps.clock.now();
  const createdAt = new Date(now).toISOString();
  const body = JSON.stringify({ id, type, createdAt, data });
  return to.map((s) => ({
    put: {
      ...deliveryKey(s.id, id),
      ...deliveryIndexes({
        webhookId: s.id,
        eventId: id,
        createdAt,
        dueAt: now,
        leadId: typeof data.leadId === 'string' ? data.leadId : undefined,
      }),
      webhookId: s.id,
      eventId: id,
      type,
      body,
      createdAt,
      attempts: 0,
      dueAt: now,
      delivered: false,
    },
  }));
}

/**
 * For a fact recorded outside a transaction of its own: the event's
 * operations in one transaction, written only if the event does not exist
 * yet, so writing it again (a fact announced twice after a crash) never
 * makes a delivered event owed again. Says whether it was written now;
 * throws when it could not be (the subscriptions or the store unreadable).
 */
export async function writeEvent(
  deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>,
  type: EventType,
  data: Record<string, unknown>,
  factKey: string,
): Promise<boolean> {
  // Unlike a fact's own transaction, the caller here can try again: subscriptions that cannot be read are an error
  // (which eventOps would log and answer as "nobody listens"). Read once, the list is then eventOps' cached one.
  await subscriptions(deps);
  const ops = (await eventOps(deps, type, data, factKey)).map((op) => ('put' in op ? { ...op, if: { itemExists: false } } : op));
  if (ops.length === 0) return false;
  try {
    await deps.store.transact(ops);
    return true;
  } catch (err) {
    if (err instanceof TransactionFailedError) return false;
    throw err;
  }
}

/** email.bounced: a lead moves to BOUNCED once, whether the bounce came at SMTP time or in a report, so the move names the fact. */
export const bounceEventOps = (
  deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>,
  lead: { id: string; campaignId: string; email: string },
  mailboxId: string,
  bounce: { status: string; diagnostic?: string },
) =>
  eventOps(
    deps,
    'email.bounced',
    {
      leadId: lead.id,
      campaignId: lead.campaignId,
      mailboxId,
      email: lead.email,
      status: bounce.status,
      diagnostic: bounce.diagnostic ?? '',
    },
    `LEAD#${lead.id}#BOUNCED`,
  );

/**
 * Erasure reaches the events: each event about the lead keeps its place in
 * its webhook's deliveries and loses what it said of the person (its body
 * becomes the bare event: id, type, time and the lead's id). One still owed
 * is not sent: it is given up with the reason, as a receiver has no use for
 * an emptied event. A worker already posting it when the erase came finishes
 * that attempt. A deleted lead's events go the same way (`why` says so):
 * once its row is gone an erase of the address cannot find them.
 * Returns how many events were emptied.
 */
export async function eraseLeadEvents(
  deps: Pick<Deps, 'store' | 'wallClock'>,
  leadId: string,
  why = 'the lead was erased before the event was delivered',
): Promise<number> {
  const items = await queryAll(deps.store, eventsOfLead(leadId));
  for (const item of items) {
    const d = deliveryFromItem(item);
    const { id, type, createdAt } = JSON.parse(d.body) as { id: string; type: string; createdAt: string };
    const owed = !d.delivered && !d.givenUp;
    await deps.store.update(deliveryKey(d.webhookId, d.eventId), {
      set: {
        body: JSON.stringify({ id, type, createdAt, data: { leadId, erased: true } }),
        ...(owed ? { givenUp: true, lastError: why, ...endedExpiry(deps.wallClock.now()) } : {}),
      },
      remove: [...withoutLeadEventsIndex(), ...(owed ? withoutPendingIndex() : [])],
    });
  }
  return items.length;
}

/**
 * Erasure of someone who wrote in another lead's thread (a colleague
 * answering): that lead's reply event, named by the stored message it rode
 * on, loses the writer's address and words (blanked as the stored reply is,
 * so the event still has its documented shape) and keeps the rest, so a
 * receiver still owed it learns that the lead's thread had an answer.
 * Returns how many deliveries of it were emptied (one per webhook that had it).
 */
export async function eraseReplySender(deps: Pick<Deps, 'store'>, leadId: string, inboundFactKey: string): Promise<number> {
  const eventId = eventIdOf('reply.received', inboundFactKey);
  // By the lead's events (a removed webhook's too) and by key for each webhook there is (an index may lag a write).
  const listed = (await queryAll(deps.store, eventsOfLead(leadId))).map(deliveryFromItem).filter((d) => d.eventId === eventId);
  const webhookIds = new Set([...listed.map((d) => d.webhookId), ...(await readSubscriptions(deps.store)).map((w) => w.id)]);
  let emptied = 0;
  for (const webhookId of webhookIds) {
    const item = await deps.store.get(deliveryKey(webhookId, eventId));
    if (!item) continue;
    const event = JSON.parse(deliveryFromItem(item).body) as { data: Record<string, unknown> };
    // Emptied already (this erase run before, or the lead's own erase, which leaves the bare event): nothing to blank.
    if (event.data.erased) continue;
    Object.assign(event.data, { fromEmail: `erased-${leadId}@erased.invalid`, subject: '', snippet: '', erased: true });
    try {
      // Only while it is there: an event removed meanwhile (expired) is not made again as a stub.
      await deps.store.update(deliveryKey(webhookId, eventId), { set: { body: JSON.stringify(event) }, if: { itemExists: true } });
      emptied++;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  }
  return emptied;
}
