/**
 * Outbound webhooks in the OpenAPI document: the four routes that manage
 * them, and the `webhooks` section (OpenAPI 3.1), which describes each event
 * the engine POSTs to a receiver. Kept beside openapi.ts, which spreads
 * these in; every shape is core's (webhooks/webhooks.view.ts).
 */
import type * as z from 'zod';
import { DeliveriesQuery } from '@outbound/core/webhooks/index';
import { CreateWebhook, EVENT_TYPES } from '@outbound/core/webhooks/webhooks.schema';
import { CreatedWebhookView, DeliveriesView, EVENT_DATA, eventView, WebhookListView } from '@outbound/core/webhooks/webhooks.view';
import { responseSchema, type Json } from './openapi-schemas.ts';

/** The routes, in the shape of openapi.ts's route descriptions. */
export const webhookRoutes = {
  'GET /v1/webhooks': { summary: 'List webhooks (secrets never included)', ok: [200, WebhookListView] as [number, z.ZodType] },
  'POST /v1/webhooks': {
    summary: 'Add a webhook: its signing secret is in this answer only. An installation holds at most 25 webhooks: the 26th answers 422',
    body: CreateWebhook as z.ZodType,
    ok: [201, CreatedWebhookView] as [number, z.ZodType],
    errors: [422],
  },
  'DELETE /v1/webhooks/{id}': {
    summary: 'Remove a webhook (events it is owed are dropped)',
    ok: [204, 'none'] as [number, 'none'],
    errors: [404],
  },
  'GET /v1/webhooks/{id}/deliveries': {
    summary: 'The events sent to a webhook, newest first: attempts and whether delivered',
    query: DeliveriesQuery as z.ZodType,
    ok: [200, DeliveriesView] as [number, z.ZodType],
    errors: [404, 422],
  },
};

/** `reply.status_changed` → `replyStatusChangedEvent`: read as a name in generated clients, like the routes' ids. */
export const eventOperationId = (type: string) => `${type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase())}Event`;

const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });

/** OpenAPI 3.1's `webhooks`: one entry per event type, the request the engine makes and the answers it takes. */
export const webhookEvents = (): Record<string, Json> =>
  Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: EVENT_DATA[type].when,
          operationId: eventOperationId(type),
          parameters: [
            header('webhook-id', 'The event id, the same on every attempt: a receiver that saw it already answers 2xx and does nothing'),
            header(
              'webhook-timestamp',
              'Seconds since the epoch when this attempt was signed (wall clock): refuse one far from your clock',
            ),
            header(
              'webhook-signature',
              '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`',
            ),
          ],
          requestBody: { required: true, content: { 'application/json': { schema: responseSchema(eventView(type)) } } },
          responses: {
            '2XX': {
              description:
                'Delivered. Any other answer, no answer within 10 seconds, or a redirect is retried with the same id and body (10 attempts over about 47 hours).',
            },
          },
        },
      },
    ]),
  );
