import * as z from 'zod';
import { neutralizeCell, neutralizeLead } from '../guardrails/csv-injection.ts';
import { Email, parse } from '../validate.ts';

const Name = z
  .union([z.string({ error: 'must be a string' }).max(200, { error: 'must be at most 200 characters' }), z.null()])
  .transform((s) => (s === null || s.trim() === '' ? undefined : s.trim()))
  .optional();

const CustomValue = z.union([z.string().max(2000, { error: 'must be at most 2000 characters' }), z.number(), z.boolean(), z.null()]);

export const LeadInput = z.strictObject({
  // Ids are short: a long one would only ever be refused by the table, as a fault instead of a sentence.
  campaignId: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'is required' })
    .max(200, { error: 'must be at most 200 characters' }),
  // A leading = + - @ would be changed by the CSV-injection guardrail; an address is refused rather than altered.
  email: Email.refine((e) => !/^[=+\-@]/.test(e), { error: 'must not start with =, +, - or @' }),
  firstName: Name,
  lastName: Name,
  company: Name,
  customFields: z
    .record(z.string().min(1).max(100, { error: 'keys must be at most 100 characters' }), CustomValue, {
      error: 'must be an object of field names to values',
    })
    .refine((o) => Object.keys(o).length <= 50, { error: 'may hold at most 50 fields' })
    .optional(),
});
export type LeadInput = z.infer<typeof LeadInput>;

/**
 * The one validation every ingest path shares (single create, CSV import,
 * webhook): the schema, then the CSV-injection guardrail (guardrail 6, README Guardrails),
 * so no path can store a formula a spreadsheet would run.
 */
export function validateLead(input: unknown): LeadInput {
  const lead = parse(LeadInput, input);
  // Field names are cells too (CSV headers become them): a formula there is neutralized like any value.
  const custom = Object.fromEntries(
    Object.entries(lead.customFields ?? {})
      .filter(([, v]) => v !== null && !(typeof v === 'string' && v.trim() === ''))
      .map(([k, v]) => [neutralizeCell(k), v]),
  );
  return neutralizeLead({ ...lead, customFields: custom });
}
