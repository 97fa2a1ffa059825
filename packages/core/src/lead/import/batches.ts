/** The worker's part: storing an import's rows in batches, each batch counted once however often it is done. */
import { EngineError, ConditionFailedError, ValidationError } from '../../errors.ts';
import type { Item } from '../../ports/store.ts';
import { queryAll } from '../../collections.ts';
import { campaignKey } from '../../campaign/keys.ts';
import * as campaignRows from '../../campaign/entity.ts';
import { addressHasher, suppressionList } from '../../suppression/index.ts';
import { suppressionKey } from '../../suppression/keys.ts';
import { leadItem, presentFields } from '../index.ts';
import { leadIdMaker } from '../identity.ts';
import { batchCountsFromItem, fromItem as leadFromItem, importBatchFromItem, importFromItem, type BatchCounts } from '../entity.ts';
import { batchesOfImport, importBatchKey, importKey, importLockKey, leadKey, legacyUniqueKey } from '../keys.ts';
import { complete, fail, sumBatches } from './finish.ts';
import { lockCampaign } from './lock.ts';
import { prepare, recall, type Prepared } from './prepare.ts';
import { BATCH, BATCH_ITEM_TTL_S, CONCURRENCY, importView, LEASE_MS, type ImportDeps, type ImportView } from './record.ts';

/** Stores what is left of an import this worker holds; releases it at `until` (RUNNING) or ends it. */
export async function work(
  deps: ImportDeps,
  importId: string,
  owner: string,
  opts: { until: number; prepared?: Prepared; wait?: boolean; clean?: boolean },
): Promise<ImportView | undefined> {
  const held = {
    if: {
      and: [
        { attr: 'owner', op: '=' as const, value: owner },
        { attr: 'status', op: '=' as const, value: 'RUNNING' },
      ],
    },
  };
  let r = importFromItem((await deps.store.get(importKey(importId)))!);
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
    await deps.store
      .update(importKey(importId), { set: { leaseUntil: 0, handedOver: true }, add: { attempts: -1 }, ...held })
      .catch((err) => {
        if (!(err instanceof ConditionFailedError)) throw err;
      });
    return importView(r);
  }
  let prepared = opts.prepared ?? recall(importId);
  if (!prepared) {
    const file = await deps.blobs.get(r.source);
    if (!file)
      return await fail(
        deps,
        r,
        owner,
        'The uploaded file is gone, so the import cannot go on. The rows stored so far stay and are counted; import the file again for the rest (the stored rows then count as duplicates).',
      );
    try {
      prepared = await prepare(file, r.campaignId);
    } catch (err) {
      if (!(err instanceof ValidationError) && !(err instanceof EngineError && err.code === 'TOO_LARGE')) throw err;
      // Nothing is stored from a file the rules refuse.
      return await fail(deps, r, owner, err.message);
    }
    if (r.stage === 'UPLOAD') {
      const counts = {
        stage: 'STORE',
        received: prepared.received,
        invalid: prepared.invalid,
        rowsRead: prepared.invalid,
        errors: prepared.errors,
      };
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
    const { sk: batch, ...counts } = importBatchFromItem(b);
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
  // A lead stored before derived ids also has a uniqueness item naming its address, removed with the lead: a campaign
  // with no lead has none, so an import into an empty campaign looks its rows up (after an unclean stop) by id alone.
  const lookUpLegacy = lookUpRows && !r.intoEmpty;
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
      await deps.store.put(
        { ...importLockKey(r.campaignId), importId, leaseUntil: lockUntil },
        { if: { attr: 'importId', op: '=', value: importId } },
      );
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
    const keys = [...(lookUpRows ? ids.map(leadKey) : []), ...(lookUpLegacy ? legacy : []), ...(listed ? [] : hashes.map(suppressionKey))];
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
      await deps.store.put(
        { ...key, ...counts, expiresAt: Math.floor(deps.wallClock.now() / 1000) + BATCH_ITEM_TTL_S },
        { if: { itemExists: false } },
      );
      return counts;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      // Another worker finished this batch first: its count stands.
      return batchCountsFromItem(await deps.store.get(key));
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
