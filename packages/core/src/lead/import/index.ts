/**
 * CSV import (docs/leads-import.md): its public verbs. The file is read and
 * every row validated (prepare.ts) before anything is stored, so a file over
 * the limits (413) or malformed (422) leaves nothing behind. The rows are then
 * stored by a worker in batches (batches.ts; record.ts says how many rows):
 * one batched read tells which are already in the campaign or suppressed, one
 * batched write stores the rest, and one small item records what the batch
 * counted. Lead ids are derived from the campaign and the address, so a batch
 * done twice (a crash, a second worker) writes the same rows and is counted
 * once; the campaign's counters move once, when the import ends (finish.ts).
 * Two imports into one campaign take turns (lock.ts).
 */
import type { Deps } from '../../deps.ts';
import { EngineError, ConditionFailedError, NotFoundError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { queryAll } from '../../collections.ts';
import { parse } from '../../validate.ts';
import { MAX_CSV_BYTES } from '../csv.ts';
import { liveCampaign } from '../index.ts';
import { ImportRecord, importFromItem } from '../entity.ts';
import { importKey, runningImportIndex, runningImports } from '../keys.ts';
import { work } from './batches.ts';
import { fail } from './finish.ts';
import { ImportInput, prepare, remember, UploadInput } from './prepare.ts';
import {
  ANSWER_WITHIN_MS,
  importView,
  LEASE_MS,
  MAX_ATTEMPTS,
  sleep,
  sourceOf,
  UPLOAD_SECONDS,
  type ImportDeps,
  type ImportView,
} from './record.ts';

export { ANSWER_WITHIN_MS, importOfBlob, importView, type ImportView } from './record.ts';
export { UploadInput } from './prepare.ts';
export type { ImportStatus } from '../entity.ts';

/**
 * POST /v1/leads/import: the file comes in the request. Answers within
 * {@link ANSWER_WITHIN_MS}: COMPLETED with the final counts, or RUNNING with
 * the counts so far while the worker the stored file started goes on.
 */
export async function importCsv(deps: ImportDeps, input: unknown): Promise<ImportView> {
  const started = deps.wallClock.now();
  const { campaignId, file } = parse(ImportInput, input);
  await liveCampaign(deps, campaignId);
  if (file.length > MAX_CSV_BYTES) throw new EngineError('TOO_LARGE', 'The CSV is larger than 10 MB: split it into smaller files.');
  const prepared = await prepare(file, campaignId);
  const importId = newId();
  remember(importId, prepared);
  const owner = newId();
  const now = deps.wallClock.now();
  await deps.store.put({
    ...importKey(importId),
    ...runningImportIndex(importId),
    ...ImportRecord.parse({
      importId,
      campaignId,
      status: 'RUNNING',
      stage: 'STORE',
      source: sourceOf(importId),
      received: prepared.received,
      invalid: prepared.invalid,
      rowsRead: prepared.invalid,
      errors: prepared.errors,
      startedAt: new Date(now).toISOString(),
      leaseUntil: now + LEASE_MS,
      owner,
      attempts: 1,
    }),
  });
  // Kept until the import ends, so a restart can finish it; storing it also starts the worker that takes over if this answer comes first.
  await deps.blobs.put(sourceOf(importId), file);
  deps.log.info('lead import started', { importId, campaignId, received: prepared.received, invalid: prepared.invalid });
  const until = started + (deps.config.importAnswerWithinMs ?? ANSWER_WITHIN_MS);
  return (await work(deps, importId, owner, { until, prepared, wait: true })) ?? (await getImport(deps, importId));
}

/**
 * POST /v1/leads/imports: an import whose file goes straight to storage
 * through a signed upload link, for files too large for a request body on
 * AWS (6 MB). The file is read and stored by the same worker once it arrives.
 */
export async function requestUpload(deps: ImportDeps, body: unknown) {
  const { campaignId, bytes } = parse(UploadInput, body);
  await liveCampaign(deps, campaignId);
  if (bytes > MAX_CSV_BYTES) throw new EngineError('TOO_LARGE', 'The CSV is larger than 10 MB: split it into smaller files.');
  const importId = newId();
  const now = deps.wallClock.now();
  const expiresAt = now + UPLOAD_SECONDS * 1000;
  const record = ImportRecord.parse({
    importId,
    campaignId,
    status: 'RUNNING',
    stage: 'UPLOAD',
    source: sourceOf(importId),
    startedAt: new Date(now).toISOString(),
    uploadExpiresAt: expiresAt,
  });
  const ticket = await deps.blobs.uploadTicket(record.source, { bytes, contentType: 'text/csv', expiresInSeconds: UPLOAD_SECONDS });
  await deps.store.put({ ...importKey(importId), ...runningImportIndex(importId), ...record });
  return { ...importView(record), upload: { ...ticket, expiresAt: new Date(expiresAt).toISOString() } };
}

/** GET /v1/leads/imports/{importId}. */
export async function getImport(deps: Pick<Deps, 'store'>, importId: string): Promise<ImportView> {
  const item = importId.length <= 64 ? await deps.store.get(importKey(importId)) : undefined;
  if (!item) throw new NotFoundError(`There is no import ${importId}.`);
  return importView(importFromItem(item));
}

/**
 * The worker: takes the import (waiting for another worker's hold to end, up
 * to `until`), then stores its remaining batches until done or `until`.
 * Started by the stored file (S3's event on AWS, the local blob store's
 * callback locally) and by the schedule that resumes imports after a restart.
 */
export async function runImport(
  deps: ImportDeps,
  importId: string,
  opts: { until: number; wait?: boolean },
): Promise<ImportView | undefined> {
  const owner = newId();
  for (;;) {
    const item = await deps.store.get(importKey(importId));
    if (!item) return undefined;
    const r = importFromItem(item);
    if (r.status !== 'RUNNING') return importView(r);
    const now = deps.wallClock.now();
    if (r.stage === 'UPLOAD' && r.uploadExpiresAt !== undefined && now > r.uploadExpiresAt && !(await deps.blobs.get(r.source))) {
      return await fail(deps, r, undefined, 'The file was not uploaded before its upload link expired.');
    }
    if (r.leaseUntil > now) {
      // Another worker holds it: wait for its hold to end (a request hands over after 15 s), or leave it to that worker.
      if (!opts.wait || now + 250 >= opts.until) return importView(r);
      await sleep(Math.min(250, r.leaseUntil - now));
      continue;
    }
    if (r.attempts >= MAX_ATTEMPTS) {
      return await fail(
        deps,
        r,
        undefined,
        `The import stopped ${r.attempts} times before it could finish (the log says why). The rows stored so far stay and are counted; import the file again for the rest (the stored rows then count as duplicates).`,
      );
    }
    try {
      await deps.store.update(importKey(importId), {
        set: { owner, leaseUntil: now + LEASE_MS, handedOver: false },
        add: { attempts: 1 },
        if: {
          and: [
            { attr: 'status', op: '=', value: 'RUNNING' },
            { attr: 'leaseUntil', op: '=', value: r.leaseUntil },
          ],
        },
      });
    } catch (err) {
      if (err instanceof ConditionFailedError) continue;
      throw err;
    }
    // A worker that stopped without handing over may have left a batch half-written: every row is then looked up first.
    return work(deps, importId, owner, { ...opts, clean: r.attempts === 0 || r.handedOver });
  }
}

/** Every import still running: after a restart, each is taken over once its last worker's hold ends. */
export async function resumeImports(deps: ImportDeps, opts: { until: number; wait?: boolean }): Promise<number> {
  let resumed = 0;
  for (const item of await queryAll(deps.store, runningImports())) {
    if (deps.wallClock.now() >= opts.until) break;
    const view = await runImport(deps, importFromItem(item).importId, opts);
    if (view && view.status !== 'RUNNING') resumed++;
  }
  return resumed;
}
