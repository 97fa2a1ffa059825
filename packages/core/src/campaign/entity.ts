/** A stored campaign: its one shape, read once from the row, and the rules read from it. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { AiProvider, CAMPAIGN_STATUSES, DEFAULT_BOUNCE_RATE_THRESHOLD } from './campaign.schema.ts';
import { DAYS } from '../schedule/window.ts';
import { campaignCollection, campaignKey, counter, FIELD_PREFIX, type VariantFigure } from './keys.ts';

/** A schedule as stored: validated (and its zone spelled) as input when it was saved, so not checked against Intl again on every read. */
export const StoredSchedule = z.object({
  timezone: z.string(),
  useLeadTimezone: z.boolean(),
  days: z.array(z.enum(DAYS)),
  start: z.string(),
  end: z.string(),
});
export type StoredSchedule = z.infer<typeof StoredSchedule>;

/** A follow-up as stored (validated as input when it was saved). */
export const StoredStep = z.object({
  waitDays: z.number(),
  body: z.string().optional(),
  aiRewrite: z.boolean().optional(),
});
export type StoredStep = z.infer<typeof StoredStep>;

/** A variant of the first email as stored (validated as input when it was saved). */
export const StoredVariant = z.object({
  subject: z.string(),
  template: z.string(),
  aiPromptTemplate: z.string().optional(),
});
export type StoredVariant = z.infer<typeof StoredVariant>;

export const CampaignStatus = z.enum(CAMPAIGN_STATUSES);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

/**
 * The row as stored. Loose: the row also carries its keys, index attributes
 * (the planning index, read by sending/keys.ts's isPlanning) and one counter per lead status (`leadsByStatus#<STATUS>`, read with
 * {@link statusCount}), which the API projection and the counters' atomic
 * ADDs use as they are. Defaults are those every reader applied to a row
 * that lacks the field; the API projection sets each of these fields itself,
 * so a default never shows there as a value the row did not hold.
 */
export const Campaign = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: CampaignStatus,
  aiPromptTemplate: z.string().optional(),
  template: z.string().nullish(),
  subject: z.string().nullish(),
  aiProvider: AiProvider.nullish(),
  unsubscribeUrlTemplate: z.string().nullish(),
  mailboxIds: z.array(z.string()).default([]),
  steps: z.array(StoredStep).default([]),
  /** The sending window; null or absent: any hour. */
  schedule: StoredSchedule.nullish(),
  /** Versions of the first email under test (docs/sending.md, Variants); null or absent: none. */
  variants: z.array(StoredVariant).nullish(),
  /** A new id each time the variants are saved: a claim that composed from older ones is refused. */
  variantsId: z.string().optional(),
  /** Leads not yet sent their first email get the winner once one is named. */
  autoWinner: z.boolean().optional(),
  /** The variant named the winner (kept once named) and when. */
  winner: z.number().optional(),
  winnerAt: z.string().optional(),
  bounceRateThreshold: z.number().optional(),
  pausedForBounceRate: z.boolean().optional(),
  /** The copy's quality score (0 to 100), kept when the subject or body changes. */
  contentQuality: z.number().optional(),
  leadsCount: z.number().default(0),
  sentCount: z.number().default(0),
  repliesCount: z.number().default(0),
  lastActivityAt: z.string().nullish(),
  launchedAt: z.string().optional(),
  /** Planning bookkeeping: leads planned so far, the page the planner resumes at, and the spacing offset of the run. */
  planned: z.number().default(0),
  planCursor: z.string().nullish(),
  planOffset: z.number().default(0),
  sealedWebhookSecret: z.string().optional(),
  webhookSecured: z.boolean().optional(),
  webhookSecretSetAt: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Campaign = z.infer<typeof Campaign>;

export const fromItem = (item: Item): Campaign => Campaign.parse(item);

/** A campaign as written: the fields with defaults may be left out (a new campaign has planned nothing yet). */
export type NewCampaign = z.input<typeof Campaign>;

export const toItem = (c: NewCampaign): Item => ({ ...campaignKey(c.id), ...campaignCollection(c.id), ...c });

/** How many of the campaign's leads are in a status (0 before the first moves there). */
export function statusCount(c: Campaign, status: string): number {
  const n = c[counter.status(status)];
  return typeof n === 'number' ? n : Number(n ?? 0);
}

/** A variant's figure (0 before it first moves). */
export function variantCount(c: Campaign, index: number, figure: VariantFigure): number {
  const n = c[counter.variant(index, figure)];
  return typeof n === 'number' ? n : Number(n ?? 0);
}

/** Whether a first email has been given a variant: from then on the variants cannot change. */
export const variantsUsed = (c: Campaign): boolean => (c.variants ?? []).some((_, i) => variantCount(c, i, 'assigned') > 0);

/** The bounce rate, in percent of sends, above which the breaker pauses a pair. */
export const bounceRateThresholdOf = (c: Pick<Campaign, 'bounceRateThreshold'> | undefined): number =>
  c?.bounceRateThreshold ?? DEFAULT_BOUNCE_RATE_THRESHOLD;

/** How many of the campaign's leads have a non-blank value for one field (an item beside the campaign, see fieldCountKey). */
export const FieldCount = z
  .object({ sk: z.string(), count: z.number().default(0) })
  .transform(({ sk, count }) => ({ field: sk.slice(FIELD_PREFIX.length), count }));
export type FieldCount = z.infer<typeof FieldCount>;
export const fieldCountFromItem = (item: Item): FieldCount => FieldCount.parse(item);
