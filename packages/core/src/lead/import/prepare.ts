/** Reading an import's file: every row through the one lead validation, before anything is stored. */
import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import { readLeadCsv } from '../csv.ts';
import { validateLead, type LeadInput } from '../lead.schema.ts';

export const ImportInput = z.object({
  campaignId: z.string({ error: 'is required' }).min(1, { error: 'is required' }).max(200, { error: 'must be at most 200 characters' }),
  file: z.instanceof(Buffer, { error: 'is required: attach the CSV as the field file' }),
});

export const UploadInput = z.strictObject({
  campaignId: ImportInput.shape.campaignId,
  bytes: z
    .number({ error: 'must be the size of the file in bytes' })
    .int({ error: 'must be a whole number of bytes' })
    .min(1, { error: 'must be at least 1' }),
});

/** A file read and validated: the counts it settles by itself, and the rows to store. */
export interface Prepared {
  received: number;
  invalid: number;
  errors: { row: number; error: string }[];
  valid: LeadInput[];
}

/** Reads every row through the one lead validation; throws 413 or 422 before anything is stored. */
export async function prepare(file: Buffer, campaignId: string): Promise<Prepared> {
  const out: Prepared = { received: 0, invalid: 0, errors: [], valid: [] };
  for await (const row of readLeadCsv(file)) {
    out.received++;
    try {
      out.valid.push(validateLead({ ...row.fields, campaignId }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      out.invalid++;
      if (out.errors.length < 100) out.errors.push({ row: row.line, error: err.message });
    }
  }
  return out;
}

/**
 * The file this process last read, by import: the worker that takes over
 * from a request in the same process (the local runtime, a warm Lambda) does
 * not read and validate 50,000 rows again. Two at most: memory stays bounded.
 */
const recentlyRead = new Map<string, Prepared>();
export function remember(importId: string, prepared: Prepared) {
  recentlyRead.set(importId, prepared);
  while (recentlyRead.size > 2) recentlyRead.delete(recentlyRead.keys().next().value!);
}

export const recall = (importId: string): Prepared | undefined => recentlyRead.get(importId);
export const forget = (importId: string): void => void recentlyRead.delete(importId);
