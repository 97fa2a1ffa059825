import type { IndexQuery, Key } from '../ports/store.ts';

export const campaignKey = (id: string): Key => ({ pk: `CAMPAIGN#${id}`, sk: 'CAMPAIGN' });
export const CAMPAIGNS = 'CAMPAIGNS';
/** gsi1: all campaigns, by id. */
export const campaignCollection = (id: string) => ({ gsi1pk: CAMPAIGNS, gsi1sk: id });

/** Counters kept on the campaign item by atomic ADD. */
export const counter = {
  leads: 'leadsCount',
  sent: 'sentCount',
  replies: 'repliesCount',
  status: (status: string) => `leadsByStatus#${status}`,
  /** A variant's figure (VARIANT_FIGURES): its leads counted once each, over first emails. */
  variant: (index: number, figure: VariantFigure) => `variant#${index}#${figure}`,
} as const;

/**
 * What is counted per variant on the campaign item, each by an atomic ADD in
 * the transaction of the fact it counts: `assigned` in the first email's
 * claim (what the balance holds even), `sent` in its record, `replied` and
 * `bounced` with the lead's move to REPLIED or BOUNCED, `unsubscribed` with
 * the lead's own unsubscribe, `positive` when the lead's first positive reply
 * appears or its last one stops being positive.
 */
export const VARIANT_FIGURES = ['assigned', 'sent', 'replied', 'positive', 'bounced', 'unsubscribed'] as const;
export type VariantFigure = (typeof VARIANT_FIGURES)[number];

/**
 * How many of a campaign's leads have a non-blank value for a field, so the
 * launch check can warn of blank and unknown placeholders without reading
 * every lead. One item per field beside the campaign, not attributes on it:
 * custom field names come from outside (the public webhook) and must not be
 * able to grow the campaign item towards DynamoDB's 400 KB.
 */
export const fieldCountKey = (campaignId: string, field: string): Key => ({ pk: `CAMPAIGN#${campaignId}`, sk: `FIELD#${field}` });
export const FIELD_PREFIX = 'FIELD#';

/** Access pattern: every campaign. */
export const allCampaigns = (): IndexQuery => ({ index: 'gsi1', pk: CAMPAIGNS });
