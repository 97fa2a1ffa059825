/** A lead as the API shows it (toLead, in lead/index.ts). */
import * as z from 'zod';
import { LeadBounce, LeadStatus } from './entity.ts';

/** The row without its keys: names null when it has none, custom fields an object. Open: the row's other fields show too. */
export const LeadView = z.object({
  id: z.string(),
  campaignId: z.string(),
  email: z.string(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  company: z.string().nullish(),
  customFields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  status: LeadStatus,
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  bounce: LeadBounce.optional(),
  /** The index of the variant its first email was given (the campaign's variants); null before that email or without variants. */
  variant: z.int().nullable(),
  /** Only when the lead's campaign has a schedule: the IANA zone its emails are timed in, and where it came from (docs/sending.md, Sending windows). */
  timezone: z.string().optional(),
  timezoneSource: z.enum(['lead', 'country', 'campaign']).optional(),
});
export type LeadView = z.infer<typeof LeadView>;

/** GET /v1/leads: a page, the total and the cursor of the next page. */
export const LeadPageView = z.object({ leads: z.array(LeadView), total: z.int(), nextCursor: z.string().nullable() });
export type LeadPageView = z.infer<typeof LeadPageView>;
