/** An import's end, completed or failed: its final counts, and the campaign's counters moved once with the status. */
import { ConditionFailedError, TransactionFailedError } from '../../errors.ts';
import type { TransactOp } from '../../ports/store.ts';
import { queryAll } from '../../collections.ts';
import { counter } from '../../campaign/keys.ts';
import { counterChanges, planIngested } from '../index.ts';
import { batchCountsFromItem, fromItem as leadFromItem, importLateFromItem, type BatchCounts, type ImportRecord } from '../entity.ts';
import { batchesOfImport, importKey, importLockKey, latesOfImport, leadKey, withoutRunningImportIndex } from '../keys.ts';
import { forget } from './prepare.ts';
import { importView, type ImportDeps, type ImportView } from './record.ts';

/** What an import's finished batches counted, summed: its progress item shows them, and its end moves the campaign's counters by them. */
export type Totals = { rowsRead: number; imported: number; duplicates: number; suppressed: number; fields: Record<string, number> };

/** What the import's finished batches counted, with the file's invalid rows. */
export function sumBatches(r: ImportRecord, batches: Iterable<BatchCounts>): Totals {
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

export function complete(deps: ImportDeps, r: ImportRecord, owner: string, t: Totals): Promise<ImportView | undefined> {
  return finish(deps, r, owner, t, { status: 'COMPLETED' });
}

/**
 * The end of an import that cannot finish. Rows it already stored stay in
 * the campaign and are counted, like a completed import's: a FAILED import
 * never leaves rows the campaign's counts do not know.
 */
export async function fail(deps: ImportDeps, r: ImportRecord, owner: string | undefined, error: string): Promise<ImportView | undefined> {
  const stored = sumBatches(r, (await queryAll(deps.store, batchesOfImport(r.importId))).map(batchCountsFromItem));
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
  forget(r.importId);
  await deps.blobs.delete(r.source);
  const logged = { importId: r.importId, campaignId: r.campaignId, received: r.received, ...counts, invalid: r.invalid };
  if (end.status === 'COMPLETED') deps.log.info('lead import completed', logged);
  else deps.log.warn('lead import failed', { ...logged, error: end.error });
  return importView({ ...r, ...counts, ...end, finishedAt });
}
