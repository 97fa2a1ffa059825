/**
 * Outbound webhooks as the API shows them (index.ts), and the events as a
 * receiver gets them (events.ts): the OpenAPI document's routes and its
 * `webhooks` section are made from these.
 */
import * as z from 'zod';
import { EVENT_TYPES, type EventType } from './webhooks.schema.ts';
import { ReplyStatus, StatusSource } from '../inbound/reply-status.ts';

const EventName = z.enum(EVENT_TYPES);

export const WebhookView = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum([...EVENT_TYPES, '*'])).min(1),
  createdAt: z.iso.datetime(),
});
export type WebhookView = z.infer<typeof WebhookView>;

export const CreatedWebhookView = WebhookView.extend({
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{43}=$/)
    .describe('Shown only in this answer: whsec_ and the base64 of 32 random bytes'),
});

export const WebhookListView = z.object({ webhooks: z.array(WebhookView) });

export const DeliveryView = z.object({
  eventId: z.string(),
  type: EventName,
  attempts: z.int(),
  lastStatus: z.int().nullable(),
  lastAttemptAt: z.iso.datetime().nullable(),
  delivered: z.boolean(),
});
export type DeliveryView = z.infer<typeof DeliveryView>;
export const DeliveriesView = z.object({ deliveries: z.array(DeliveryView) });

const time = z.iso.datetime();

/** Each event's `data` (docs/webhooks.md, Events), with when it is sent. */
export const EVENT_DATA: Record<EventType, { when: string; data: z.ZodObject }> = {
  'email.sent': {
    when: 'An email was accepted by its mailbox’s SMTP server: a campaign step (step 0 is the first email) or a person’s answer (step null)',
    data: z.object({
      leadId: z.string(),
      campaignId: z.string(),
      mailboxId: z.string(),
      step: z.int().nullable(),
      messageId: z.string(),
      sentAt: time,
    }),
  },
  'reply.received': {
    when: 'A lead replied (not an out-of-office answer): every reply message, with the status the rules read from it',
    data: z.object({
      replyId: z
        .string()
        .optional()
        .describe('The reply’s id in GET /v1/replies and PATCH /v1/replies/{id} (absent on events made before 1.10)'),
      status: ReplyStatus.optional().describe(
        'The status the rules read when the reply was recorded (NEEDS_REVIEW when they could not tell); later changes come as reply.status_changed',
      ),
      leadId: z.string(),
      campaignId: z.string(),
      mailboxId: z.string(),
      fromEmail: z.string(),
      subject: z.string(),
      snippet: z.string(),
      receivedAt: time,
      erased: z.literal(true).optional().describe('The writer was erased: fromEmail, subject and snippet are blanked'),
    }),
  },
  'email.bounced': {
    when: 'An email bounced for good (status: the 5.x.x code)',
    data: z.object({
      leadId: z.string(),
      campaignId: z.string(),
      mailboxId: z.string(),
      email: z.string(),
      status: z.string(),
      diagnostic: z.string(),
    }),
  },
  'email.complained': {
    when: 'A lead marked an email as spam',
    data: z.object({ leadId: z.string(), campaignId: z.string(), email: z.string() }),
  },
  'lead.unsubscribed': { when: 'A lead unsubscribed', data: z.object({ leadId: z.string(), campaignId: z.string(), email: z.string() }) },
  'campaign.paused': {
    when: 'A campaign stopped sending: paused by hand, by the bounce breaker, or with the whole queue',
    data: z.object({ campaignId: z.string(), reason: z.enum(['manual', 'breaker', 'queue']) }),
  },
  'reply.status_changed': {
    when: 'A reply’s status changed after it was recorded: the customer’s AI read it, or a person set it',
    data: z.object({
      replyId: z.string(),
      leadId: z.string(),
      campaignId: z.string(),
      status: ReplyStatus,
      previousStatus: ReplyStatus,
      source: StatusSource.exclude(['rules']),
    }),
  },
  'campaign.winner': {
    when: 'A campaign’s variants test named a winner (once per campaign; docs/sending.md, Variants)',
    data: z.object({
      campaignId: z.string(),
      winner: z.int().min(0).describe('The winning variant’s index'),
      method: z.string().describe('The test, in a sentence'),
    }),
  },
  'mailbox.error': {
    when: 'A mailbox could not be used and was set to ERROR',
    data: z.object({ mailboxId: z.string(), email: z.string(), error: z.string() }),
  },
};

/** The body of one event's POST. */
export const eventView = (type: EventType) =>
  z.object({ id: z.string(), type: z.literal(type), createdAt: time, data: EVENT_DATA[type].data });
