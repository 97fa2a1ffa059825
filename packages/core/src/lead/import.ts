import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { EngineError, ValidationError } from '../errors.ts';
import { parse } from '../validate.ts';
import { campaignKey } from '../campaign/keys.ts';
import { countCsvRows, MAX_CSV_BYTES, readLeadCsv } from './csv.ts';
import { planIngested, store } from './index.ts';
import { validateLead, type LeadInput } from './lead.schema.ts';

const ImportInput = z.object({
  campaignId: z.string({ error: 'is required' }).min(1, { error: 'is required' }).max(200, { error: 'must be at most 200 characters' }),
  file: z.instanceof(Buffer, { error: 'is required: attach the CSV as the field file' }),
});

export interface ImportReport {
  received: number;
  imported: number;
  duplicates: number;
  suppressed: number;
  invalid: number;
  errors: { row: number; error: string }[];
}

/**
 * POST /v1/leads/import, synchronous (docs/leads-import.md). The file is measured
 * and counted before anything is stored, so a file over the limits (413)
 * leaves nothing behind; every row then goes through the same validation as
 * the other ingest paths, CSV-injection guardrail included.
 */
export async function importCsv(deps: Pick<Deps, 'store' | 'keys' | 'wallClock' | 'clock' | 'log'>, input: unknown): Promise<ImportReport> {
  const { campaignId, file } = parse(ImportInput, input);
  const campaign = await deps.store.get(campaignKey(campaignId));
  if (!campaign) throw new ValidationError(`campaignId: there is no campaign ${campaignId}.`);
  if (campaign.status === 'ARCHIVED') throw new ValidationError(`campaignId: the campaign ${campaignId} is archived.`);
  if (file.length > MAX_CSV_BYTES) throw new EngineError('TOO_LARGE', 'The CSV is larger than 10 MB: split it into smaller files.');
  await countCsvRows(file);

  const report: ImportReport = { received: 0, imported: 0, duplicates: 0, suppressed: 0, invalid: 0, errors: [] };
  const valid: LeadInput[] = [];
  for await (const row of readLeadCsv(file)) {
    report.received++;
    try {
      valid.push(validateLead({ ...row.fields, campaignId }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      report.invalid++;
      if (report.errors.length < 100) report.errors.push({ row: row.line, error: err.message });
    }
  }
  deps.log.info('lead import parsed', { campaignId, received: report.received, valid: valid.length });
  const { outcomes, created } = await store(deps, campaignId, valid);
  await planIngested(deps, campaignId, created);
  for (const o of outcomes) {
    if (o === 'created') report.imported++;
    else if (o === 'duplicate') report.duplicates++;
    else report.suppressed++;
  }
  deps.log.info('lead import stored', { campaignId, ...report, errors: report.errors.length });
  return report;
}
