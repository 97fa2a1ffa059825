import * as z from 'zod';

/** The event types a webhook may subscribe to (docs/webhooks.md, Events). */
export const EVENT_TYPES = [
  'email.sent',
  'reply.received',
  'email.bounced',
  'email.complained',
  'lead.unsubscribed',
  'campaign.paused',
  'mailbox.error',
  'reply.status_changed',
  'campaign.winner',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Hosts a receiver on the same machine answers to: only these may be reached over plain http. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

const WebhookUrl = z
  .string({ error: 'must be a string' })
  .trim()
  .max(2048, { error: 'must be at most 2048 characters' })
  .refine((s) => URL.canParse(s), { error: 'must be an absolute URL such as https://hooks.example.com/outbound' })
  .refine((s) => !URL.canParse(s) || ['https:', 'http:'].includes(new URL(s).protocol), { error: 'must start with https://' })
  .refine((s) => !URL.canParse(s) || (!new URL(s).username && !new URL(s).password), { error: 'must not carry a user name or password' })
  .refine((s) => !URL.canParse(s) || new URL(s).protocol === 'https:' || isLoopbackHost(new URL(s).hostname), {
    error: 'must start with https:// (plain http:// is only for a receiver on this machine: localhost or 127.0.0.1)',
  });

const EventList = z
  .array(z.enum([...EVENT_TYPES, '*'], { error: `each must be one of ${EVENT_TYPES.join(', ')}, or "*" for all` }), {
    error: 'must be a list of event types',
  })
  .min(1, { error: 'must name at least one event type, or be ["*"] for all' })
  .max(EVENT_TYPES.length + 1)
  .refine((l) => !l.includes('*') || l.length === 1, { error: '"*" already means every event type: give it alone' })
  .transform((l) => [...new Set(l)]);

export const CreateWebhook = z.strictObject({ url: WebhookUrl, events: EventList });
export type CreateWebhook = z.infer<typeof CreateWebhook>;
