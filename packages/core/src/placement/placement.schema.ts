import * as z from 'zod';

/** POST /v1/domains/{id}/placement-sample: what the samples say (docs/placement.md). */
export const StartSample = z
  .strictObject({
    campaignId: z
      .string({ error: 'must be a string' })
      .min(1, { error: 'cannot be blank' })
      .max(200, { error: 'must be at most 200 characters' })
      .optional(),
    subject: z.string({ error: 'must be a string' }).trim().min(1, { error: 'cannot be blank' }).max(998).optional(),
    body: z.string({ error: 'must be a string' }).trim().min(1, { error: 'cannot be blank' }).max(100_000).optional(),
  })
  .refine((v) => !v.campaignId || (v.subject === undefined && v.body === undefined), {
    error: 'Give a campaignId or a subject and body, not both.',
  })
  .refine((v) => (v.subject === undefined) === (v.body === undefined), { error: 'Give a subject and a body together.' });

export type PlacementCounts = { inbox: number; spam: number; missing: number };
export interface PlacementRollup extends PlacementCounts {
  domainId: string;
  sampledAt: string | null;
  sampleSize: number;
  byProvider: Record<string, PlacementCounts>;
}
