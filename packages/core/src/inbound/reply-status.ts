/**
 * What a reply means (docs/inbound.md, "Reply statuses"). The rules read the
 * first seven from the reply's own words; a person may also set the last three.
 */
import * as z from 'zod';

/** Statuses the engine's rules (or the customer's AI) may give. NEEDS_REVIEW: the rules could not tell with confidence. */
export const RULE_STATUSES = [
  'INTERESTED',
  'QUESTION',
  'NOT_NOW',
  'NOT_INTERESTED',
  'WRONG_PERSON',
  'UNSUBSCRIBE',
  'NEEDS_REVIEW',
] as const;
export const RuleStatus = z.enum(RULE_STATUSES);
export type RuleStatus = z.infer<typeof RuleStatus>;

/** Every status a reply can have: those the rules give, and those only a person sets. */
export const REPLY_STATUSES = [...RULE_STATUSES, 'MEETING_BOOKED', 'WON', 'LOST'] as const;
export const ReplyStatus = z.enum(REPLY_STATUSES);
export type ReplyStatus = z.infer<typeof ReplyStatus>;

/** Who gave a reply its status. A person's status is never changed afterwards by the rules or the AI. */
export const StatusSource = z.enum(['rules', 'ai', 'person']);
export type StatusSource = z.infer<typeof StatusSource>;

/** Another person's address that the reply's own words give ("talk to jana@acme.com"). */
export const Referral = z.object({ email: z.string(), name: z.string().nullable() });
export type Referral = z.infer<typeof Referral>;
