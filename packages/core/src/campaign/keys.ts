import type { Key } from '../ports/store.ts';

export const campaignKey = (id: string): Key => ({ pk: `CAMPAIGN#${id}`, sk: 'CAMPAIGN' });
export const CAMPAIGNS = 'CAMPAIGNS';
/** gsi1: all campaigns, by id. */
export const campaignCollection = (id: string) => ({ gsi1pk: CAMPAIGNS, gsi1sk: id });

/**
 * Counters kept on the campaign item by atomic ADD. Field counters count the
 * leads with a non-blank value for a field, so the launch check can warn of
 * blank and unknown placeholders without reading every lead.
 */
export const counter = {
  leads: 'leadsCount',
  sent: 'sentCount',
  replies: 'repliesCount',
  status: (status: string) => `leadsByStatus#${status}`,
  field: (name: string) => `field#${name}`,
} as const;
