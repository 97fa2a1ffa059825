/**
 * Delivering events (docs/webhooks.md, Delivery). The table is the outbox:
 * an event owed to a webhook stays in the pending index until a 2xx answer
 * or the last attempt. The sweep (the `webhooks` schedule) puts what is due
 * within the queue's 15-minute reach on the delivery queue, with the wait as
 * the message's delay; the worker makes one attempt per message. Sends never
 * wait on any of it: a fact's transaction only writes the outbox item.
 */
import { createHmac } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import type { DeliveryMessage } from '../ports/webhooks.ts';
import { openSecretCached } from '../secrets/index.ts';
import { deliveryFromItem, endedExpiry, type Delivery } from './entity.ts';
import { load, secretContext } from './index.ts';
import { deliveryKey, pendingDeliveries, pendingIndex, pendingSk, withoutPendingIndex } from './keys.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Engine time from each failed attempt to the next: 10 attempts over about 47 hours. */
export const RETRY_DELAYS_MS = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An answer later than this is a failure. */
export const ATTEMPT_TIMEOUT_MS = 10 * SECOND;
/** Wall time an attempt holds its delivery: the timeout and the writes around it. A worker that died lets go when it passes. */
const CLAIM_MS = ATTEMPT_TIMEOUT_MS + 20 * SECOND;
/** Wall time past a message's delay before the sweep takes it for lost and sends another. */
const QUEUE_GRACE_MS = 60 * SECOND;
/** SQS holds a message at most 15 minutes. */
const QUEUE_REACH_MS = 900 * SECOND;
const SWEEP_PAGE = 100;
const SWEEP_MAX = 1000;

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the bytes after `whsec_` (Standard Webhooks). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

type SweepDeps = Pick<Deps, 'store' | 'clock' | 'wallClock' | 'config' | 'webhookQueue' | 'log'>;

/**
 * Queues every delivery due within the queue's reach that has no message on
 * its way: the first attempt of each event (facts only write the table), a
 * retry whose wait is longer than SQS holds a message, and any message lost
 * (a crash between a write and its enqueue, a worker that died mid-attempt).
 * `requeueAll`, at the local runtime's start, forgets the messages said to be
 * on their way: fauxqs kept none across the restart.
 */
export async function sweep(deps: SweepDeps, opts: { requeueAll?: boolean } = {}): Promise<{ queued: number }> {
  const now = deps.clock.now();
  const wallNow = deps.wallClock.now();
  const scale = deps.config.timeScale || 1;
  const horizon = now + QUEUE_REACH_MS * scale;
  let queued = 0;
  let cursor: string | undefined;
  let seen = 0;
  do {
    const page = await deps.store.query({
      ...pendingDeliveries(),
      skBetween: ['0', `${pendingSk(horizon, '~', '~')}`],
      limit: SWEEP_PAGE,
      cursor,
    });
    cursor = page.cursor;
    seen += page.items.length;
    const due = page.items
      .map(deliveryFromItem)
      .filter(
        (d) => !d.delivered && !d.givenUp && !((d.claimUntil ?? 0) > wallNow) && (opts.requeueAll || !((d.queuedUntil ?? 0) > wallNow)),
      );
    for (const d of due) {
      const delayMs = Math.max(0, d.dueAt - now);
      if (await markQueued(deps, d, wallNow + delayMs / scale + QUEUE_GRACE_MS)) {
        await deps.webhookQueue.enqueue([{ webhookId: d.webhookId, eventId: d.eventId, attempt: d.attempts, delayMs }]);
        queued++;
      }
    }
  } while (cursor && seen < SWEEP_MAX);
  return { queued };
}

/** Only while no attempt has been made since it was read: a stale read queues nothing. */
async function markQueued(deps: Pick<Deps, 'store'>, d: Delivery, until: number): Promise<boolean> {
  try {
    await deps.store.update(deliveryKey(d.webhookId, d.eventId), {
      set: { queuedUntil: Math.ceil(until) },
      if: { attr: 'attempts', op: '=', value: d.attempts },
    });
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

type DeliverDeps = Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'config' | 'webhookQueue' | 'webhookPoster' | 'log'>;

export type AttemptResult = 'delivered' | 'retry' | 'gave-up' | 'dropped' | 'skipped';

/**
 * One attempt for one queue message. A message for an attempt already made,
 * a delivery another worker holds, or one not due yet is skipped (the sweep
 * queues it again when its time comes); each attempt sends the same id and
 * body with a fresh timestamp and signature.
 */
export async function deliver(deps: DeliverDeps, msg: Pick<DeliveryMessage, 'webhookId' | 'eventId' | 'attempt'>): Promise<AttemptResult> {
  const key = deliveryKey(msg.webhookId, msg.eventId);
  const item = await deps.store.get(key, { consistent: true });
  if (!item) return 'skipped';
  const d = deliveryFromItem(item);
  if (d.delivered || d.givenUp || d.attempts !== msg.attempt) return 'skipped';
  const wallNow = deps.wallClock.now();
  if (d.dueAt > deps.clock.now()) {
    // Early (the engine clock was moved, or SQS rounded the delay down): the sweep sends it again when due.
    await deps.store.update(key, { remove: ['queuedUntil'], if: { attr: 'attempts', op: '=', value: d.attempts } }).catch(ignoreCondition);
    return 'skipped';
  }
  let claimed: Delivery;
  try {
    claimed = deliveryFromItem(
      await deps.store.update(key, {
        set: { claimUntil: wallNow + CLAIM_MS },
        remove: ['queuedUntil'],
        // Not given up: an erase between the read above and this claim gives the event up, and it must not go.
        if: {
          and: [
            { attr: 'attempts', op: '=', value: d.attempts },
            { attr: 'delivered', op: '=', value: false },
            { attr: 'givenUp', exists: false },
            {
              or: [
                { attr: 'claimUntil', exists: false },
                { attr: 'claimUntil', op: '<', value: wallNow },
              ],
            },
          ],
        },
      }),
    );
  } catch (err) {
    if (err instanceof ConditionFailedError) return 'skipped';
    throw err;
  }
  // The body as the claim left it, not as first read: an erase may have emptied it meanwhile (a colleague's words blanked).
  const body = claimed.body;

  const webhook = await load(deps, d.webhookId);
  if (!webhook) {
    await deps.store.update(key, { set: { givenUp: true, ...endedExpiry(wallNow) }, remove: [...withoutPendingIndex(), 'claimUntil'] });
    return 'dropped';
  }
  const secret = await openSecretCached(deps.keys, webhook.sealedSecret, secretContext(webhook.id), wallNow);
  const timestamp = Math.floor(deps.wallClock.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Outbound-Webhooks/1',
    'webhook-id': d.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, d.eventId, timestamp, body),
  };
  const outcome = await deps.webhookPoster.post(webhook.url, headers, body, ATTEMPT_TIMEOUT_MS);
  const attempts = d.attempts + 1;
  const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const now = deps.clock.now();
  const base = {
    attempts,
    lastStatus: outcome.status ?? null,
    lastAttemptAt: new Date(now).toISOString(),
  };
  const error =
    outcome.status === undefined
      ? { lastError: outcome.error }
      : outcome.status >= 300 && outcome.status < 400
        ? { lastError: 'the receiver answered with a redirect, which is not followed' }
        : {};
  if (ok || attempts >= MAX_ATTEMPTS) {
    await deps.store.update(key, {
      set: { ...base, ...endedExpiry(deps.wallClock.now()), ...(ok ? { delivered: true } : { givenUp: true, ...error }) },
      remove: [...withoutPendingIndex(), 'claimUntil', ...(ok ? ['lastError'] : [])],
    });
    if (!ok)
      deps.log.warn('webhooks: an event was given up after its last attempt', { webhookId: d.webhookId, eventId: d.eventId, attempts });
    return ok ? 'delivered' : 'gave-up';
  }
  const delayMs = RETRY_DELAYS_MS[d.attempts]!;
  const dueAt = now + delayMs;
  const scale = deps.config.timeScale || 1;
  const inReach = delayMs / scale <= QUEUE_REACH_MS;
  await deps.store.update(key, {
    set: {
      ...base,
      ...error,
      dueAt,
      ...pendingIndex(dueAt, d.webhookId, d.eventId),
      ...(inReach ? { queuedUntil: Math.ceil(deps.wallClock.now() + delayMs / scale + QUEUE_GRACE_MS) } : {}),
    },
    remove: ['claimUntil'],
  });
  if (inReach) {
    // Lost, it is the sweep's once queuedUntil passes.
    await deps.webhookQueue
      .enqueue([{ webhookId: d.webhookId, eventId: d.eventId, attempt: attempts, delayMs }])
      .catch((err) => deps.log.warn('webhooks: a retry could not be queued; the sweep will', { err }));
  }
  return 'retry';
}

function ignoreCondition(err: unknown): void {
  if (!(err instanceof ConditionFailedError)) throw err;
}
