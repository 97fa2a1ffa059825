/** An import as the API shows it (importView and requestUpload, in lead/import/). */
import * as z from 'zod';
import type { Fits } from '../../view.ts';
import { ImportStatus } from '../entity.ts';
import type { requestUpload } from './index.ts';
import type { importView } from './record.ts';

export const ImportResultView = z.object({
  importId: z.string(),
  campaignId: z.string(),
  status: ImportStatus,
  received: z.int(),
  imported: z.int(),
  duplicates: z.int(),
  suppressed: z.int(),
  invalid: z.int(),
  errors: z.array(z.object({ row: z.int(), error: z.string() })),
  rowsRead: z.int().optional(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.string().optional(),
});
export type ImportResultView = z.infer<typeof ImportResultView>;

/** POST /v1/leads/imports: the import, and where its file goes. */
export const UploadTicketView = ImportResultView.extend({
  upload: z.object({ url: z.string(), method: z.literal('PUT'), headers: z.record(z.string(), z.string()), expiresAt: z.string() }),
});
export type UploadTicketView = z.infer<typeof UploadTicketView>;

type _Result = Fits<ReturnType<typeof importView>, ImportResultView>;
type _Ticket = Fits<Awaited<ReturnType<typeof requestUpload>>, UploadTicketView>;
