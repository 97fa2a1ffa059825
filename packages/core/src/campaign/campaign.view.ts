/** A campaign as the API shows it (toCampaign, list, launchCheck and launch in campaign/index.ts). */
import * as z from 'zod';
import { LEAD_STATUSES, type LeadStatus } from '../lead/entity.ts';
import { MailboxStatus } from '../mailbox/entity.ts';
import { AiProvider } from './campaign.schema.ts';
import { CampaignStatus } from './entity.ts';
import { DAYS } from '../schedule/window.ts';
import { PASSED, PROBLEM_CODES, WARNING_CODES } from './launch-check.ts';

export const ScheduleView = z.object({
  timezone: z.string(),
  useLeadTimezone: z.boolean(),
  days: z.array(z.enum(DAYS)),
  start: z.string().regex(/^\d\d:\d\d$/),
  end: z.string().regex(/^\d\d:\d\d$/),
});

/** One value per lead status, keyed by the status in lower case (a campaign's progress). */
export const perStatus = <T>(value: (status: LeadStatus) => T) =>
  Object.fromEntries(LEAD_STATUSES.map((s) => [s.toLowerCase(), value(s)])) as { [S in LeadStatus as Lowercase<S>]: T };

export const CampaignView = z.object({
  id: z.string(),
  name: z.string(),
  status: CampaignStatus,
  aiPromptTemplate: z.string().optional(),
  template: z.string(),
  subject: z.string().nullable(),
  aiProvider: AiProvider.nullable(),
  unsubscribeUrlTemplate: z.string().nullable(),
  mailboxIds: z.array(z.string()),
  steps: z.array(z.object({ waitDays: z.int(), body: z.string().optional(), aiRewrite: z.boolean().optional() })),
  /** When in each recipient's day an email may start (docs/sending.md, Sending windows); null: any hour. */
  schedule: ScheduleView.nullable(),
  /** Versions of the first email under test (docs/sending.md, Variants); null: none. */
  variants: z.array(z.object({ subject: z.string(), template: z.string(), aiPromptTemplate: z.string().optional() })).nullable(),
  /** Once a winner is named, leads not yet sent their first email get it. */
  autoWinner: z.boolean(),
  bounceRateThreshold: z.number().optional(),
  pausedForBounceRate: z.boolean().optional(),
  contentQuality: z.int().optional(),
  leadsCount: z.int(),
  sentCount: z.int(),
  repliesCount: z.int(),
  lastActivityAt: z.string().nullable(),
  launchedAt: z.string().optional(),
  webhookSecured: z.boolean(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type CampaignView = z.infer<typeof CampaignView>;

/** What blocks a launch, and what only warns: a code, a sentence, and (open) what it is about. */
export const ProblemView = z.object({ code: z.enum(PROBLEM_CODES), message: z.string() });
export const WarningView = z.object({ code: z.enum(WARNING_CODES), message: z.string() });

export const LaunchCheckView = z.object({
  canLaunch: z.boolean(),
  problems: z.array(ProblemView),
  warnings: z.array(WarningView),
  passed: z.array(z.enum(PASSED)),
});
export type LaunchCheckView = z.infer<typeof LaunchCheckView>;

/** The answer of a launch: the campaign, ACTIVE, with the warnings it launched with. */
export const LaunchedCampaignView = CampaignView.extend({ warnings: z.array(WarningView) });
export type LaunchedCampaignView = z.infer<typeof LaunchedCampaignView>;

/** The 422 of a launch: every problem at once. */
export const LaunchRefusedView = z.object({ error: z.string(), problems: z.array(ProblemView), warnings: z.array(WarningView) });
export type LaunchRefusedView = z.infer<typeof LaunchRefusedView>;

/** A row of GET /v1/campaigns: the campaign with its senders, launch state and progress. */
export const CampaignRowView = CampaignView.extend({
  senders: z.array(
    z.object({
      mailboxId: z.string(),
      email: z.string(),
      status: MailboxStatus,
      domainId: z.string(),
      domainName: z.string().nullable(),
      hasMailingAddress: z.boolean(),
    }),
  ),
  launch: LaunchCheckView.pick({ canLaunch: true, problems: true }),
  progress: z.object({
    total: z.int(),
    ...perStatus(() => z.int()),
    percentDone: z.int(),
    planned: z.int(),
    planning: z.boolean(),
  }),
  domainsCount: z.int(),
});
export type CampaignRowView = z.infer<typeof CampaignRowView>;

/** GET /v1/campaigns/{id}/variants: each variant's figures, counted per lead over first emails, the winner and the test. */
export const VariantFiguresView = z.object({
  variants: z.array(
    z.object({
      index: z.int(),
      subject: z.string(),
      sent: z.int().describe('Leads sent this variant’s first email'),
      replied: z.int().describe('Of those, leads who replied'),
      positive: z.int().describe('Leads with a reply now INTERESTED, MEETING_BOOKED or WON (a person’s change moves it)'),
      bounced: z.int(),
      unsubscribed: z.int(),
    }),
  ),
  winner: z.int().nullable().describe('The winning variant’s index once named (it stays); null until then'),
  method: z.string().describe('The test, in a sentence'),
});
