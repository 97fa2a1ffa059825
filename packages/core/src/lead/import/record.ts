/**
 * A CSV import as a whole: its limits, where its file is kept while it runs,
 * and what the API shows of it. The stored shapes (the progress item, a
 * batch's counts) are in lead/entity.ts.
 */
import type { Deps } from '../../deps.ts';
import type { ImportRecord } from '../entity.ts';

/** Rows per batch: four BatchWriteItem and one count item, and a BatchGetItem of 100 keys for the rows (when they are looked up) and for their suppression entries (when the list cannot be read whole). */
export const BATCH = 100;
/** Batches in flight at once. */
export const CONCURRENCY = 8;
/** A worker holds an import for this long, and renews it while it works; a dead worker's import is taken over after it. */
export const LEASE_MS = 15_000;
/** POST /v1/leads/import stops storing rows by then and answers (the upload and the reading of the file come before; API Gateway waits 30 s). */
export const ANSWER_WITHIN_MS = 15_000;
/** An upload link lasts this long. */
export const UPLOAD_SECONDS = 900;
/** A worker that stopped this many times on one import (a fault each time) ends it as FAILED. */
export const MAX_ATTEMPTS = 8;
/** Batch items outlive the import by a week (the table's TTL removes them). */
export const BATCH_ITEM_TTL_S = 7 * 86_400;

export type ImportDeps = Pick<Deps, 'store' | 'keys' | 'wallClock' | 'clock' | 'log' | 'blobs' | 'config' | 'metrics'>;

/** The answer of POST /v1/leads/import and GET /v1/leads/imports/{importId}. */
export function importView(r: ImportRecord) {
  return {
    importId: r.importId,
    campaignId: r.campaignId,
    status: r.status,
    received: r.received,
    imported: r.imported,
    duplicates: r.duplicates,
    suppressed: r.suppressed,
    invalid: r.invalid,
    errors: r.errors,
    rowsRead: r.rowsRead,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt ?? null,
    ...(r.error ? { error: r.error } : {}),
  };
}
export type ImportView = ReturnType<typeof importView>;

export const sourceOf = (importId: string) => `imports/${importId}.csv`;
/** The import a stored blob belongs to (the blob-stored event names only the key). */
export const importOfBlob = (key: string): string | undefined => /^imports\/([0-9A-Za-z]{1,64})\.csv$/.exec(key)?.[1];

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
