import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { EngineError, ConditionFailedError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import { queryAll } from '../collections.ts';
import { parse } from '../validate.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import { addressHasher, suppressionList } from '../suppression/index.ts';
import { suppressionKey } from '../suppression/keys.ts';
import { MAX_CSV_BYTES, readLeadCsv } from './csv.ts';
import { counterChanges, leadItem, liveCampaign, planIngested, presentFields } from './index.ts';
import { leadIdMaker } from './identity.ts';
import { fromItem as leadFromItem, importLateFromItem, importLockFromItem, lapsed } from './entity.ts';
import * as campaignRows from '../campaign/entity.ts';
import { validateLead, type LeadInput } from './lead.schema.ts';
import { batchesOfImport, importBatchKey, importKey, importLockKey, latesOfImport, leadKey, legacyUniqueKey, runningImportIndex, runningImports, withoutRunningImportIndex } from './keys.ts';

/**
 * CSV import (docs/leads-import.md). The file is read and every row validated
 * before anything is stored, so a file over the limits (413) or malformed
 * (422) leaves nothing behind. The rows are then stored by a worker in
 * batches of {@link BATCH}: one batched read tells which are already in the
 * campaign or suppressed, one batched write stores the rest, and one small
 * item records what the batch counted. Lead ids are derived from the campaign
 * and the address, so a batch done twice (a crash, a second worker) writes
 * the same rows and is counted once; the campaign's counters move once, when
 * the import completes.
 */

/** Rows per batch: four BatchWriteItem and one count item, and a BatchGetItem of 100 keys for the rows (when they are looked up) and for their suppression entries (when the list cannot be read whole). */
const BATCH = 100;
/** Batches in flight at once. */
const CONCURRENCY = 8;
/** A worker holds an import for this long, and renews it while it works; a dead worker's import is taken over after it. */
const LEASE_MS = 15_000;
/** POST /v1/leads/import stops storing rows by then and answers (the upload and the reading of the file come before; API Gateway waits 30 s). */
export const ANSWER_WITHIN_MS = 15_000;
/** An upload link lasts this long. */
const UPLOAD_SECONDS = 900;
/** A worker that stopped this many times on one import (a fault each time) ends it as FAILED. */
const MAX_ATTEMPTS = 8;
/** Batch items outlive the import by a week (the table's TTL removes them). */
const BATCH_ITEM_TTL_S = 7 * 86_400;

export type ImportStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';

const RowError = z.object({ row: z.number(), error: z.string() });

/** The import's stored progress item. */
const ImportRecord = z.object({
  importId: z.string(),
  campaignId: z.string(),
  status: z.enum(['RUNNING', 'COMPLETED', 'FAILED']),
  /** UPLOAD: waiting for the file (upload link); STORE: the file is read and its rows are being stored. */
  stage: z.enum(['UPLOAD', 'STORE']),
  source: z.string(),
  received: z.number().default(0),
  imported: z.number().default(0),
  duplicates: z.number().default(0),
  suppressed: z.number().default(0),
  invalid: z.number().default(0),
  rowsRead: z.number().default(0),
  errors: z.array(RowError).default([]),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  error: z.string().optional(),
  uploadExpiresAt: z.number().optional(),
  leaseUntil: z.number().default(0),
  owner: z.string().optional(),
  attempts: z.number().default(0),
  /** Set when its last worker handed it over cleanly (every batch it started was finished and counted). */
  handedOver: z.boolean().default(false),
  /** The campaign held no lead when this import started storing: rows need no existence check (see importLateKey). */
  intoEmpty: z.boolean().optional(),
});
type ImportRecord = z.infer<typeof ImportRecord>;

const fromItem = (item: Item): ImportRecord => ImportRecord.parse(item);

/** What one batch counted, kept on its item. */
const BatchCounts = z.object({
  rows: z.number(),
  imported: z.number(),
  duplicates: z.number(),
  suppressed: z.number(),
  fields: z.record(z.string(), z.number()),
});
type BatchCounts = z.infer<typeof BatchCounts>;
/** A batch's item: its number is in its sort key (importBatchKey). */
const BatchItem = BatchCounts.extend({ sk: z.string().regex(/^BATCH#\d+$/).transform((sk) => Number.parseInt(sk.slice('BATCH#'.length), 10)) });

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

type ImportDeps = Pick<Deps, 'store' | 'keys' | 'wallClock' | 'clock' | 'log' | 'blobs' | 'config' | 'metrics'>;

/** A file read and validated: the counts it settles by itself, and the rows to store. */
interface Prepared {
  received: number;
  invalid: number;
  errors: { row: number; error: string }[];
  valid: LeadInput[];
}

/** Reads every row through the one lead validation; throws 413 or 422 before anything is stored. */
async function prepare(file: Buffer, campaignId: string): Promise<Prepared> {
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
function remember(importId: string, prepared: Prepared) {
  recentlyRead.set(importId, prepared);
  while (recentlyRead.size > 2) recentlyRead.delete(recentlyRead.keys().next().value!);
}

const sourceOf = (importId: string) => `imports/${importId}.csv`;
/** The import a stored blob belongs to (the blob-stored event names only the key). */
export const importOfBlob = (key: string): string | undefined => /^imports\/([0-9A-Za-z]{1,64})\.csv$/.exec(key)?.[1];

const ImportInput = z.object({
  campaignId: z.string({ error: 'is required' }).min(1, { error: 'is required' }).max(200, { error: 'must be at most 200 characters' }),
  file: z.instanceof(Buffer, { error: 'is required: attach the CSV as the field file' }),
});

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

export const UploadInput = z.strictObject({
  campaignId: ImportInput.shape.campaignId,
  bytes: z.number({ error: 'must be the size of the file in bytes' }).int({ error: 'must be a whole number of bytes' }).min(1, { error: 'must be at least 1' }),
});

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
  return importView(fromItem(item));
}

/**
 * The worker: takes the import (waiting for another worker's hold to end, up
 * to `until`), then stores its remaining batches until done or `until`.
 * Started by the stored file (S3's event on AWS, the local blob store's
 * callback locally) and by the schedule that resumes imports after a restart.
 */
export async function runImport(deps: ImportDeps, importId: string, opts: { until: number; wait?: boolean }): Promise<ImportView | undefined> {
  const owner = newId();
  for (;;) {
    const item = await deps.store.get(importKey(importId));
    if (!item) return undefined;
    const r = fromItem(item);
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
      return await fail(deps, r, undefined, `The import stopped ${r.attempts} times before it could finish (the log says why). The rows stored so far stay and are counted; import the file again for the rest (the stored rows then count as duplicates).`);
    }
    try {
      await deps.store.update(importKey(importId), {
        set: { owner, leaseUntil: now + LEASE_MS, handedOver: false },
        add: { attempts: 1 },
        if: { and: [{ attr: 'status', op: '=', value: 'RUNNING' }, { attr: 'leaseUntil', op: '=', value: r.leaseUntil }] },
      });
    } catch (err) {
      if (err instanceof ConditionFailedError) continue;
      throw err;
    }
    // A worker that stopped without handing over may have left a batch half-written: every row is then looked up first.
    return work(deps, importId, owner, { ...opts, clean: r.attempts === 0 || r.handedOver });
  }
}

/**
 * Takes the campaign's import lock for this import (renewed with its
 * progress, kept through a hand-over, removed when it ends). Another import
 * holding it: wait for it when `wait`, up to `until`. Says whether another
 * import held the lock before (it may have stored rows the campaign's counts
 * do not show yet), or null when the lock was not taken.
 */
async function lockCampaign(
  deps: ImportDeps,
  r: ImportRecord,
  opts: { until: number; wait?: boolean },
  /** Called while waiting: the worker keeps its hold on its own import meanwhile (false: another worker took it). */
  keepHold: () => Promise<boolean>,
): Promise<{ othersBefore: boolean } | null> {
  for (;;) {
    const now = deps.wallClock.now();
    const stored = await deps.store.get(importLockKey(r.campaignId));
    const current = stored && importLockFromItem(stored);
    if (!current || current.importId === r.importId || lapsed(current, now)) {
      try {
        await deps.store.put(
          { ...importLockKey(r.campaignId), importId: r.importId, leaseUntil: now + LEASE_MS },
          current ? { if: { and: [{ attr: 'importId', op: '=', value: current.importId }, { attr: 'leaseUntil', op: '=', value: current.leaseUntil }] } } : { if: { itemExists: false } },
        );
        return { othersBefore: Boolean(current && current.importId !== r.importId) };
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
        continue;
      }
    }
    if (!opts.wait || now + 500 >= opts.until) return null;
    await sleep(500);
    if (!(await keepHold())) return null;
  }
}

/** Every import still running: after a restart, each is taken over once its last worker's hold ends. */
export async function resumeImports(deps: ImportDeps, opts: { until: number; wait?: boolean }): Promise<number> {
  let resumed = 0;
  for (const item of await queryAll(deps.store, runningImports())) {
    if (deps.wallClock.now() >= opts.until) break;
    const view = await runImport(deps, fromItem(item).importId, opts);
    if (view && view.status !== 'RUNNING') resumed++;
  }
  return resumed;
}

/** Stores what is left of an import this worker holds; releases it at `until` (RUNNING) or ends it. */
async function work(
  deps: ImportDeps,
  importId: string,
  owner: string,
  opts: { until: number; prepared?: Prepared; wait?: boolean; clean?: boolean },
): Promise<ImportView | undefined> {
  const held = { if: { and: [{ attr: 'owner', op: '=' as const, value: owner }, { attr: 'status', op: '=' as const, value: 'RUNNING' }] } };
  let r = fromItem((await deps.store.get(importKey(importId)))!);
  const keepHold = () =>
    deps.store.update(importKey(importId), { set: { leaseUntil: deps.wallClock.now() + LEASE_MS }, ...held }).then(
      () => true,
      (err: unknown) => {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      },
    );
  const lock = await lockCampaign(deps, r, opts, keepHold);
  if (!lock) {
    // Another import into this campaign is storing rows: this one waits its turn (the worker or the schedule takes it
    // up). Handed over cleanly, with nothing stored, and waiting is not a stop: it does not count among the attempts.
    await deps.store.update(importKey(importId), { set: { leaseUntil: 0, handedOver: true }, add: { attempts: -1 }, ...held }).catch((err) => {
      if (!(err instanceof ConditionFailedError)) throw err;
    });
    return importView(r);
  }
  let prepared = opts.prepared ?? recentlyRead.get(importId);
  if (!prepared) {
    const file = await deps.blobs.get(r.source);
    if (!file) return await fail(deps, r, owner, 'The uploaded file is gone, so the import cannot go on. The rows stored so far stay and are counted; import the file again for the rest (the stored rows then count as duplicates).');
    try {
      prepared = await prepare(file, r.campaignId);
    } catch (err) {
      if (!(err instanceof ValidationError) && !(err instanceof EngineError && err.code === 'TOO_LARGE')) throw err;
      // Nothing is stored from a file the rules refuse.
      return await fail(deps, r, owner, err.message);
    }
    if (r.stage === 'UPLOAD') {
      const counts = { stage: 'STORE', received: prepared.received, invalid: prepared.invalid, rowsRead: prepared.invalid, errors: prepared.errors };
      await deps.store.update(importKey(importId), { set: counts, ...held });
      r = { ...r, ...counts, stage: 'STORE' };
    }
  }

  const idOf = await leadIdMaker(deps);
  const hashOf = await addressHasher(deps);
  const valid = prepared.valid;
  // The first row of each address: a later row with it is a duplicate within the file, whichever batch it falls in.
  const first = new Map<string, number>();
  valid.forEach((lead, i) => {
    if (!first.has(lead.email)) first.set(lead.email, i);
  });
  const batchCount = Math.ceil(valid.length / BATCH);
  const done = new Map<number, BatchCounts>();
  for (const b of await queryAll(deps.store, batchesOfImport(importId))) {
    const { sk: batch, ...counts } = BatchItem.parse(b);
    done.set(batch, counts);
  }
  if (r.intoEmpty === undefined || (r.intoEmpty && lock.othersBefore)) {
    // Decided under the campaign's lock: a campaign with no lead, that no other import has held, has no row to look
    // up (the common case, a new campaign). Another import that held the lock may have stored rows not yet counted.
    const campaign = await deps.store.get(campaignKey(r.campaignId));
    r = { ...r, intoEmpty: !lock.othersBefore && !done.size && !(campaign ? campaignRows.fromItem(campaign).leadsCount : 0) };
    await deps.store.update(importKey(importId), { set: { intoEmpty: r.intoEmpty }, ...held });
  }
  const lookUpRows = !(r.intoEmpty && (opts.clean ?? true));
  // The suppression list read whole when it can be (a few requests), instead of a lookup per address.
  const listed = await suppressionList(deps);

  const totals = () => sumBatches(r, done.values());

  let lost = false;
  let lastProgress = deps.wallClock.now();
  /** Counts so far, and a longer hold; a worker that lost its hold stops. */
  let logged = 0;
  const progress = async (leaseUntil: number, handedOver = false, lockUntil = leaseUntil) => {
    const { fields: _fields, ...t } = totals();
    // Long work says where it is: a log line per 10,000 rows.
    if (Math.floor(t.rowsRead / 10_000) > logged) {
      logged = Math.floor(t.rowsRead / 10_000);
      deps.log.info('lead import progress', { importId, rowsRead: t.rowsRead, of: r.received, imported: t.imported });
    }
    try {
      await deps.store.update(importKey(importId), { set: { ...t, leaseUntil, handedOver }, ...held });
      await deps.store.put({ ...importLockKey(r.campaignId), importId, leaseUntil: lockUntil }, { if: { attr: 'importId', op: '=', value: importId } });
    } catch (err) {
      if (err instanceof ConditionFailedError) lost = true;
      else throw err;
    }
  };

  const storeBatch = async (k: number): Promise<BatchCounts> => {
    const rows = valid.slice(k * BATCH, (k + 1) * BATCH);
    const ids = rows.map((l) => idOf(r.campaignId, l.email));
    const hashes = rows.map((l) => hashOf(l.email));
    // Rows looked up: under their derived ids, and by the uniqueness item a lead stored before derived ids has.
    const legacy = rows.map((l) => legacyUniqueKey(r.campaignId, l.email));
    const keys = [...(lookUpRows ? [...ids.map(leadKey), ...legacy] : []), ...(listed ? [] : hashes.map(suppressionKey))];
    const found = new Map((keys.length ? await deps.store.batchGet(keys) : []).map((i) => [i.pk, i] as const));
    const isSuppressed = (i: number) => (listed ? listed.has(hashes[i]!) : found.has(suppressionKey(hashes[i]!).pk));
    const counts: BatchCounts = { rows: rows.length, imported: 0, duplicates: 0, suppressed: 0, fields: {} };
    const now = new Date(deps.wallClock.now()).toISOString();
    const writes: Item[] = [];
    rows.forEach((lead, i) => {
      if (isSuppressed(i)) return void counts.suppressed++;
      if (first.get(lead.email)! < k * BATCH + i) return void counts.duplicates++;
      if (found.has(legacy[i]!.pk)) return void counts.duplicates++;
      const row = found.get(leadKey(ids[i]!).pk);
      const existing = row && leadFromItem(row);
      // A row this import stored on an earlier try counts as imported, and is left as it is now.
      if (existing && existing.importId !== importId) return void counts.duplicates++;
      if (!existing) writes.push(leadItem(lead, ids[i]!, now, { importId }));
      counts.imported++;
      for (const f of presentFields(lead)) counts.fields[f] = (counts.fields[f] ?? 0) + 1;
    });
    await deps.store.batchPut(writes);
    const key = importBatchKey(importId, k);
    try {
      await deps.store.put({ ...key, ...counts, expiresAt: Math.floor(deps.wallClock.now() / 1000) + BATCH_ITEM_TTL_S }, { if: { itemExists: false } });
      return counts;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      // Another worker finished this batch first: its count stands.
      return BatchCounts.parse(await deps.store.get(key));
    }
  };

  let next = 0;
  let yielded = false;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, batchCount) }, async () => {
      for (;;) {
        while (next < batchCount && done.has(next)) next++;
        if (next >= batchCount || lost) return;
        const now = deps.wallClock.now();
        if (now >= opts.until) return void (yielded = true);
        const k = next++;
        done.set(k, await storeBatch(k));
        if (deps.wallClock.now() - lastProgress >= 1000) {
          lastProgress = deps.wallClock.now();
          await progress(lastProgress + LEASE_MS);
        }
      }
    }),
  );
  if (lost) return undefined;
  if (yielded) {
    // Handed back: the worker waiting on this hold (the stored file's, or the schedule's) goes on at once; the
    // campaign stays this import's meanwhile, so no other import comes between.
    await progress(0, true, deps.wallClock.now() + LEASE_MS);
    deps.log.info('lead import continues in the background', { importId, ...totals(), fields: undefined });
    return lost ? undefined : importView({ ...r, ...totals(), leaseUntil: 0 });
  }
  return complete(deps, r, owner, totals());
}

/** The end: final counts, and the campaign's counters moved once, in one transaction with the status change. */
type Totals = { rowsRead: number; imported: number; duplicates: number; suppressed: number; fields: Record<string, number> };

/** What the import's finished batches counted, with the file's invalid rows. */
function sumBatches(r: ImportRecord, batches: Iterable<BatchCounts>): Totals {
  const t: Totals = { rowsRead: r.invalid, imported: 0, duplicates: 0, suppressed: 0, fields: {} };
  for (const c of batches) {
    t.rowsRead += c.rows;
    t.imported += c.imported;
    t.duplicates += c.duplicates;
    t.suppressed += c.suppressed;
    for (const [f, n] of Object.entries(c.fields)) t.fields[f] = (t.fields[f] ?? 0) + n;
  }
  return t;
}

/**
 * Leads a single create stored while this import (into an empty campaign, so
 * without existence checks) held the campaign: where the import then wrote
 * the same row, the single create already counted it, so the import counts it
 * as a duplicate, and the field counts follow the row as it now stands.
 */
async function settleLates(deps: ImportDeps, importId: string, t: Totals): Promise<Totals> {
  const lates = (await queryAll(deps.store, latesOfImport(importId))).map(importLateFromItem);
  if (!lates.length) return t;
  const rows = new Map((await deps.store.batchGet(lates.map((l) => leadKey(l.leadId)))).map((i) => [i.pk, i] as const));
  const out = { ...t, fields: { ...t.fields } };
  for (const late of lates) {
    const row = rows.get(leadKey(late.leadId).pk);
    if (!row || leadFromItem(row).importId !== importId) continue;
    out.imported--;
    out.duplicates++;
    for (const f of late.fields) out.fields[f] = (out.fields[f] ?? 0) - 1;
  }
  return out;
}

function complete(deps: ImportDeps, r: ImportRecord, owner: string, t: Totals): Promise<ImportView | undefined> {
  return finish(deps, r, owner, t, { status: 'COMPLETED' });
}

/**
 * The end of an import that cannot finish. Rows it already stored stay in
 * the campaign and are counted, like a completed import's: a FAILED import
 * never leaves rows the campaign's counts do not know.
 */
async function fail(deps: ImportDeps, r: ImportRecord, owner: string | undefined, error: string): Promise<ImportView | undefined> {
  const stored = sumBatches(r, (await queryAll(deps.store, batchesOfImport(r.importId))).map((b) => BatchCounts.parse(b)));
  return finish(deps, r, owner, stored, { status: 'FAILED', error });
}

/**
 * Either end: the final counts, and the campaign's counters moved once, in
 * the transaction that changes the status (held by `owner`, when a worker
 * holds it). A completed import removes the campaign's lock with it; a failed
 * one leaves it released, so the next import into the campaign looks every
 * row up.
 */
async function finish(
  deps: ImportDeps,
  r: ImportRecord,
  owner: string | undefined,
  totals: Totals,
  end: { status: 'COMPLETED' } | { status: 'FAILED'; error: string },
): Promise<ImportView | undefined> {
  const finishedAt = new Date(deps.wallClock.now()).toISOString();
  const t = r.intoEmpty ? await settleLates(deps, r.importId, totals) : totals;
  const { fields, ...counts } = t;
  const running = { attr: 'status', op: '=' as const, value: 'RUNNING' };
  const status: TransactOp = {
    update: importKey(r.importId),
    change: {
      set: { ...counts, ...end, finishedAt, leaseUntil: 0 },
      remove: withoutRunningImportIndex(),
      if: owner ? { and: [{ attr: 'owner', op: '=', value: owner }, running] } : running,
    },
  };
  const counters = counterChanges(r.campaignId, t.imported, { [counter.status('NEW')]: t.imported }, fields);
  const lockIsMine = { attr: 'importId', op: '=' as const, value: r.importId };
  const unlock: TransactOp[] = end.status === 'COMPLETED' ? [{ delete: importLockKey(r.campaignId), if: lockIsMine }] : [];
  try {
    await deps.store.transact([status, ...unlock, ...counters]);
  } catch (err) {
    if (!(err instanceof TransactionFailedError)) throw err;
    if (err.failed.includes(0) || !unlock.length) return undefined;
    // The lock was already taken over (this worker was paused past its hold): the counts still move once, with the status.
    await deps.store.transact([status, ...counters]);
  }
  if (end.status === 'FAILED') {
    await deps.store.update(importLockKey(r.campaignId), { set: { leaseUntil: 0 }, if: lockIsMine }).catch((err) => {
      if (!(err instanceof ConditionFailedError)) throw err;
    });
  }
  if (t.imported) {
    deps.metrics.count('LeadsImported', t.imported);
    await planIngested(deps, r.campaignId, t.imported);
  }
  recentlyRead.delete(r.importId);
  await deps.blobs.delete(r.source);
  const logged = { importId: r.importId, campaignId: r.campaignId, received: r.received, ...counts, invalid: r.invalid };
  if (end.status === 'COMPLETED') deps.log.info('lead import completed', logged);
  else deps.log.warn('lead import failed', { ...logged, error: end.error });
  return importView({ ...r, ...counts, ...end, finishedAt });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
