/** The answer of GET /v1/leads/{id}/next-send (sending/next-send.ts). */
import * as z from 'zod';

export const BLOCK_RULES = [
  'window',
  'waitDays',
  'cadence',
  'dailyCap',
  'paused',
  'breaker',
  'outOfOffice',
  'suppressed',
  'finished',
  'mailbox',
  'domain',
] as const;
export type BlockRule = (typeof BLOCK_RULES)[number];

export const NextSendView = z.object({
  leadId: z.string(),
  campaignId: z.string(),
  /** The next step to send (0 is the first email); null when the sequence has ended. */
  step: z.int().nullable(),
  /** The earliest engine time (ISO 8601) it may start given every rule; null when, as things stand, it never will. */
  earliestAt: z.string().nullable(),
  /** The zone its window is read in, and where it came from; null when the campaign has no schedule. */
  timezone: z.string().nullable(),
  timezoneSource: z.enum(['lead', 'country', 'campaign']).nullable(),
  /** Each rule holding it now: until when (null: until something changes), and a sentence. */
  blockedBy: z.array(z.object({ rule: z.enum(BLOCK_RULES), until: z.string().nullable(), detail: z.string() })),
});
export type NextSendView = z.infer<typeof NextSendView>;
