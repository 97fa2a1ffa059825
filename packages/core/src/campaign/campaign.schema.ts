import * as z from 'zod';
import { validateSpintax } from '../copy/spintax.ts';
import { ScheduleOrNull } from '../schedule/schedule.schema.ts';

/**
 * Text that may hold spintax: invalid spintax is a 422 naming the field and
 * the position. Measured in characters and in bytes too: the table counts
 * UTF-8 bytes (400 KB an item), and 20,000 characters of non-Latin text can be
 * 80 KB; twice the characters in bytes keeps a whole campaign far under it.
 */
const spintax = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((text) => Buffer.byteLength(text) <= max * 2, {
      error: `must be at most ${(max * 2).toLocaleString('en-US')} bytes of UTF-8 (long non-Latin text counts 2 to 4 bytes a character)`,
    })
    .superRefine((text, ctx) => {
      try {
        validateSpintax(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/\.$/, '') });
      }
    });

export const AiProvider = z.enum(['OPENAI', 'ANTHROPIC'], { error: 'must be OPENAI or ANTHROPIC' });

export const Step = z.strictObject({
  waitDays: z
    .number({ error: 'must be a whole number of days' })
    .int({ error: 'must be a whole number of days' })
    .min(1, { error: 'must be from 1 to 30' })
    .max(30, { error: 'must be from 1 to 30' }),
  body: spintax(20_000).optional(),
  aiRewrite: z.boolean({ error: 'must be true or false' }).optional(),
});
export type Step = z.infer<typeof Step>;

const UnsubscribeUrlTemplate = z
  .union([z.string({ error: 'must be a string or null' }).max(2000, { error: 'must be at most 2000 characters' }), z.null()])
  .transform((s) => (s === null || s.trim() === '' ? null : s.trim()))
  .refine(
    (s) => {
      if (s === null) return true;
      const sample = s.replaceAll(/\{\{\s*email\s*\}\}/g, encodeURIComponent('someone@example.com'));
      return URL.canParse(sample) && /^https?:$/.test(new URL(sample).protocol);
    },
    { error: 'must be an http or https address; {{email}} is replaced with the recipient' },
  );

const MailboxIds = z
  .array(z.string({ error: 'must be mailbox ids' }).min(1).max(200, { error: 'must be mailbox ids' }), {
    error: 'must be an array of mailbox ids',
  })
  .max(100, { error: 'may hold at most 100 mailboxes' })
  .transform((ids) => [...new Set(ids)]);

/** A campaign's sequence is its first email and at most this many follow-ups: a lead has at most MAX_FOLLOW_UPS + 1 jobs (sending/keys.ts, jobKeysOfLead). */
export const MAX_FOLLOW_UPS = 3;

/** The first email's copy when variants test it: checked as the campaign's own subject, template and prompt are. */
const aiPrompt = z
  .string({ error: 'must be a string' })
  .max(20_000, { error: 'must be at most 20000 characters' })
  .refine((text) => Buffer.byteLength(text) <= 40_000, {
    error: 'must be at most 40,000 bytes of UTF-8 (long non-Latin text counts 2 to 4 bytes a character)',
  });

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 6;

export const Variant = z.strictObject({
  subject: spintax(500),
  template: spintax(50_000),
  aiPromptTemplate: aiPrompt.optional(),
});
export type Variant = z.infer<typeof Variant>;

/** 2 to 6 versions of the first email, or null to remove them (docs/sending.md, Variants). */
const Variants = z.union([
  z
    .array(Variant, { error: 'must be a list of 2 to 6 { subject, template, aiPromptTemplate? }, or null' })
    .min(MIN_VARIANTS, { error: `must hold ${MIN_VARIANTS} to ${MAX_VARIANTS} variants` })
    .max(MAX_VARIANTS, { error: `must hold ${MIN_VARIANTS} to ${MAX_VARIANTS} variants` }),
  z.null(),
]);

const fields = {
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'cannot be blank' })
    .max(200, { error: 'must be at most 200 characters' }),
  aiPromptTemplate: aiPrompt,
  template: spintax(50_000),
  subject: z.union([spintax(500), z.null()]),
  aiProvider: z.union([AiProvider, z.null()]),
  unsubscribeUrlTemplate: UnsubscribeUrlTemplate,
  mailboxIds: MailboxIds,
  steps: z
    .array(Step, { error: 'must be an array of follow-ups' })
    .max(MAX_FOLLOW_UPS, { error: `may hold at most ${MAX_FOLLOW_UPS} follow-ups` }),
  // When in each recipient's day an email may start; null (or none) sends at any hour.
  schedule: ScheduleOrNull,
  variants: Variants,
  // Once a winner is named, leads not yet sent their first email get it.
  autoWinner: z.boolean({ error: 'must be true or false' }),
};

export const CreateCampaign = z.strictObject({
  name: fields.name,
  aiPromptTemplate: fields.aiPromptTemplate,
  template: fields.template.optional(),
  subject: fields.subject.optional(),
  aiProvider: fields.aiProvider.optional(),
  unsubscribeUrlTemplate: fields.unsubscribeUrlTemplate.optional(),
  mailboxIds: fields.mailboxIds.optional(),
  steps: fields.steps.optional(),
  schedule: fields.schedule.optional(),
  variants: fields.variants.optional(),
  autoWinner: fields.autoWinner.optional(),
});

export const UpdateCampaign = z.strictObject({
  name: fields.name.optional(),
  template: fields.template.optional(),
  subject: fields.subject.optional(),
  aiPromptTemplate: fields.aiPromptTemplate.optional(),
  aiProvider: fields.aiProvider.optional(),
  unsubscribeUrlTemplate: fields.unsubscribeUrlTemplate.optional(),
  // A rate in percent of sends: 0.1 to 100.
  bounceRateThreshold: z
    .number({ error: 'must be a number of percent' })
    .gt(0, { error: 'must be more than 0 and at most 100 (percent)' })
    .max(100, { error: 'must be more than 0 and at most 100 (percent)' })
    .optional(),
  pausedForBounceRate: z
    .literal(false, { error: 'can only be set to false, to resume sending after the circuit breaker tripped' })
    .optional(),
  mailboxIds: fields.mailboxIds.optional(),
  steps: fields.steps.optional(),
  schedule: fields.schedule.optional(),
  variants: fields.variants.optional(),
  autoWinner: fields.autoWinner.optional(),
});

export const CAMPAIGN_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export const DEFAULT_BOUNCE_RATE_THRESHOLD = 5;
