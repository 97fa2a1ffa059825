/**
 * Outbound webhooks: where the engine tells other tools what happened
 * (docs/webhooks.md). The verbs behind /v1/webhooks; events are made by
 * events.ts inside the transaction of their fact, and delivered by delivery.ts.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { sealSecret } from '../secrets/index.ts';
import { parse } from '../validate.ts';
import { deliveryFromItem, fromItem, type Webhook } from './entity.ts';
import { forgetSubscriptions } from './events.ts';
import { allWebhooks, deliveriesOf, webhookCountKey, webhookIndexes, webhookKey } from './keys.ts';
import { CreateWebhook } from './webhooks.schema.ts';
import type { DeliveryView, WebhookView } from './webhooks.view.ts';

/**
 * The KMS encryption context of a signing secret (purpose listed in functions/src/manifest.ts, SealPurpose). The
 * purpose is written out here, as every context helper's is: stacks/kms.test.ts reads it from each bundle to hold a
 * function's KMS permissions to what its code seals and opens.
 */
export const secretContext = (webhookId: string) => ({ purpose: 'webhook-signing-secret', webhook: webhookId });

const view = (w: Webhook): WebhookView => ({ id: w.id, url: w.url, events: w.events as WebhookView['events'], createdAt: w.createdAt });

/**
 * The most webhooks an installation holds. Each subscribed webhook adds one
 * write to the transaction of the fact its event rides on (a send's record
 * has about ten of its own), and DynamoDB takes at most 100 writes in one
 * transaction: past about 90 webhooks a send SMTP accepted could not be
 * recorded. 25 leaves the rest of the transaction room to grow.
 */
export const MAX_WEBHOOKS = 25;

/**
 * The webhook count, made from the list the first time it is needed (an
 * installation whose webhooks predate the count), then kept by the
 * transactions that add and remove webhooks.
 */
async function ensureCount(deps: Pick<Deps, 'store'>): Promise<void> {
  if (await deps.store.get(webhookCountKey, { consistent: true })) return;
  const count = await deps.store.count(allWebhooks());
  await deps.store.put({ ...webhookCountKey, count }, { if: { itemExists: false } }).catch((err) => {
    // Made meanwhile by another request: that one stands.
    if (!(err instanceof ConditionFailedError)) throw err;
  });
}

/** The secret is in the answer and nowhere else: it is stored sealed, and no route shows it again. At most MAX_WEBHOOKS. */
export async function create(deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>, body: unknown): Promise<WebhookView & { secret: string }> {
  const input = parse(CreateWebhook, body);
  await ensureCount(deps);
  const id = newId();
  const createdAt = new Date(deps.wallClock.now()).toISOString();
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const sealedSecret = await sealSecret(deps.keys, secret, secretContext(id));
  try {
    await deps.store.transact([
      {
        put: { ...webhookKey(id), ...webhookIndexes(createdAt, id), id, url: input.url, events: input.events, sealedSecret, createdAt },
        if: { itemExists: false },
      },
      // Counted in the same write, so two adds at the 24th cannot both pass.
      { update: webhookCountKey, change: { add: { count: 1 }, if: { attr: 'count', op: '<', value: MAX_WEBHOOKS } } },
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError && err.failed.includes(1)) {
      throw new ValidationError(`An installation holds at most ${MAX_WEBHOOKS} webhooks: remove one before adding another.`);
    }
    throw err;
  }
  forgetSubscriptions(deps.store);
  return { id, url: input.url, events: input.events, secret, createdAt };
}

export async function list(deps: Pick<Deps, 'store'>): Promise<WebhookView[]> {
  const out: WebhookView[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.store.query({ ...allWebhooks(), cursor });
    out.push(...page.items.map((i) => view(fromItem(i))));
    cursor = page.cursor;
  } while (cursor);
  return out;
}

const Id = z.string().min(1).max(64);

/** Events still owed to it are dropped when their turn comes (delivery.ts finds no webhook). */
export async function remove(deps: Pick<Deps, 'store'>, id: unknown): Promise<void> {
  const key = webhookKey(parse(Id, id));
  // Without a count yet there is nothing to move: the first add counts what is left.
  const counted = await deps.store.get(webhookCountKey, { consistent: true });
  try {
    await deps.store.transact([
      { delete: key, if: { itemExists: true } },
      ...(counted ? [{ update: webhookCountKey, change: { add: { count: -1 } } }] : []),
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError && err.failed.includes(0)) throw new NotFoundError('No webhook has this id.');
    throw err;
  }
  forgetSubscriptions(deps.store);
}

export const DeliveriesQuery = z.strictObject({ limit: z.coerce.number({ error: 'must be a number' }).int().min(1).max(100).default(100) });

/** Newest first, the latest 100 unless `limit` says fewer. */
export async function deliveries(deps: Pick<Deps, 'store'>, id: unknown, query: unknown = {}): Promise<{ deliveries: DeliveryView[] }> {
  const webhookId = parse(Id, id);
  const { limit } = parse(DeliveriesQuery, query ?? {});
  if (!(await deps.store.get(webhookKey(webhookId)))) throw new NotFoundError('No webhook has this id.');
  const page = await deps.store.query({ ...deliveriesOf(webhookId), reverse: true, limit });
  return {
    deliveries: page.items.map((item) => {
      const d = deliveryFromItem(item);
      return {
        eventId: d.eventId,
        type: d.type as DeliveryView['type'],
        attempts: d.attempts,
        lastStatus: d.lastStatus ?? null,
        lastAttemptAt: d.lastAttemptAt ?? null,
        delivered: d.delivered,
      };
    }),
  };
}

/** The webhook and its secret, for the delivery worker; undefined once removed. */
export async function load(deps: Pick<Deps, 'store'>, id: string): Promise<Webhook | undefined> {
  const item = await deps.store.get(webhookKey(id));
  return item && fromItem(item);
}
