import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import { campaignKey, fieldCountKey } from '../campaign/keys.ts';
import { created, unitDeps } from '../testing/unit-deps.ts';
import * as leads from './index.ts';
import * as suppression from '../suppression/index.ts';
import { importCsv, runImport } from './import/index.ts';
import { importBatchKey, importKey, leadKey, legacyUniqueKey } from './keys.ts';
import { leadIdMaker } from './identity.ts';

const csv = (n: number) =>
  Buffer.from('email,first name,company\n' + Array.from({ length: n }, (_, i) => `p${i}@late.example,P${i},Co`).join('\n'));

describe('an import into an empty campaign (no existence lookups)', () => {
  it('counts a lead a single create stored while it held the campaign once, and field counts follow the row', async () => {
    const deps = unitDeps();
    deps.config.importAnswerWithinMs = 0;
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    // Answers at once: the import holds the campaign and has decided it was empty, but stored nothing yet.
    const started = await importCsv(deps, { campaignId: c.id, file: csv(120) });
    expect(started).toMatchObject({ status: 'RUNNING', imported: 0 });

    // The webhook stores one of the file's addresses meanwhile, with fields of its own.
    await leads.acceptWebhook(deps, { campaignId: c.id, email: 'p7@late.example', lastName: 'Solo', customFields: { source: 'zap' } });

    const done = await runImport(deps, started.importId, { until: deps.wallClock.now() + 60_000 });
    expect(done).toMatchObject({ status: 'COMPLETED', received: 120, imported: 119, duplicates: 1 });
    const campaign = await deps.store.get(campaignKey(c.id));
    expect(campaign?.leadsCount).toBe(120);
    // The row is the import's (it was written over), so the counts describe it: no lastName, no source.
    const row = await deps.store.get(leadKey((await leadIdMaker(deps))(c.id, 'p7@late.example')));
    expect(row).toMatchObject({ firstName: 'P7', importId: started.importId });
    const count = async (f: string) => Number((await deps.store.get(fieldCountKey(c.id, f)))?.count ?? 0);
    expect(await count('firstName')).toBe(120);
    expect(await count('company')).toBe(120);
    expect(await count('lastName')).toBe(0);
    expect(await count('source')).toBe(0);
  });

  it('looks every row up after a worker stopped without handing over: rows it stored stay as they are now', async () => {
    const deps = unitDeps();
    deps.config.importAnswerWithinMs = 0;
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    const started = await importCsv(deps, { campaignId: c.id, file: csv(80) });
    // A worker died after writing some rows of a batch and before counting it: the rows are there, the batch item is not.
    const idOf = await leadIdMaker(deps);
    for (const i of [0, 1, 2]) {
      await deps.store.put({
        ...leadKey(idOf(c.id, `p${i}@late.example`)),
        id: idOf(c.id, `p${i}@late.example`),
        campaignId: c.id,
        email: `p${i}@late.example`,
        status: 'NEW',
        importId: started.importId,
        customFields: {},
      });
    }
    // One of them has since been answered.
    await deps.store.update(leadKey(idOf(c.id, 'p1@late.example')), { set: { status: 'REPLIED' } });
    await deps.store.update({ pk: `IMPORT#${started.importId}`, sk: 'IMPORT' }, { set: { handedOver: false, leaseUntil: 0 } });
    const looked: string[] = [];
    const batchGet = deps.store.batchGet.bind(deps.store);
    deps.store.batchGet = async (keys) => {
      looked.push(...keys.map((k) => k.pk));
      return batchGet(keys);
    };
    const done = await runImport(deps, started.importId, { until: deps.wallClock.now() + 60_000 });
    expect(done).toMatchObject({ status: 'COMPLETED', imported: 80, duplicates: 0 });
    expect((await deps.store.get(campaignKey(c.id)))?.leadsCount).toBe(80);
    expect(await deps.store.get(leadKey(idOf(c.id, 'p1@late.example')))).toMatchObject({ status: 'REPLIED' });
    // Each row once, by its id: a campaign that had no lead has no uniqueness item of an earlier version to look for.
    expect(looked.filter((pk) => pk.startsWith('LEAD#')).length).toBe(80);
    expect(looked.filter((pk) => pk.startsWith('LEADUNIQUE#'))).toEqual([]);
  });

  it('makes a second import into the same campaign wait its turn, even while the first is being handed over', async () => {
    const deps = unitDeps();
    deps.config.importAnswerWithinMs = 0;
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    const a = await importCsv(deps, { campaignId: c.id, file: csv(150) });
    const b = await importCsv(deps, { campaignId: c.id, file: csv(150) });
    expect([a.status, b.status]).toEqual(['RUNNING', 'RUNNING']);
    // B's worker comes first: A still holds the campaign (its worker is taking over), so B waits and stores nothing.
    expect(await runImport(deps, b.importId, { until: deps.wallClock.now() + 1000 })).toMatchObject({ status: 'RUNNING', imported: 0 });
    // Waiting is not a stop: it is handed back cleanly and does not count toward the eight that end an import.
    expect(await deps.store.get(importKey(b.importId))).toMatchObject({ attempts: 0, handedOver: true, leaseUntil: 0 });
    expect(await runImport(deps, a.importId, { until: deps.wallClock.now() + 60_000 })).toMatchObject({
      status: 'COMPLETED',
      imported: 150,
    });
    expect(await runImport(deps, b.importId, { until: deps.wallClock.now() + 60_000 })).toMatchObject({
      status: 'COMPLETED',
      imported: 0,
      duplicates: 150,
    });
    expect((await deps.store.get(campaignKey(c.id)))?.leadsCount).toBe(150);
  });

  it('ends FAILED after too many stops, and counts the rows it had stored, so the campaign knows every row it holds', async () => {
    const deps = unitDeps();
    deps.config.importAnswerWithinMs = 0;
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    const started = await importCsv(deps, { campaignId: c.id, file: csv(200) });
    // Two batches were stored and counted before its workers kept dying.
    for (const k of [0, 1]) {
      await deps.store.put({
        ...importBatchKey(started.importId, k),
        rows: 100,
        imported: 100,
        duplicates: 0,
        suppressed: 0,
        fields: { firstName: 100, company: 100 },
      });
    }
    await deps.store.update(importKey(started.importId), { set: { attempts: 8, leaseUntil: 0 } });
    const failed = await runImport(deps, started.importId, { until: deps.wallClock.now() + 60_000 });
    expect(failed).toMatchObject({
      status: 'FAILED',
      imported: 200,
      rowsRead: 200,
      error: expect.stringMatching(/stopped 8 times.*stay and are counted/),
    });
    expect((await deps.store.get(campaignKey(c.id)))?.leadsCount).toBe(200);
    expect(Number((await deps.store.get(fieldCountKey(c.id, 'company')))?.count)).toBe(200);
  });

  it('skips suppressed addresses whether it reads the suppression list whole (a new install) or looks each one up (an older one)', async () => {
    for (const indexed of [true, false]) {
      const deps = unitDeps();
      const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
      await suppression.suppress(deps, 'p3@late.example', 'manual');
      await suppression.suppress(deps, 'P40@late.example', 'unsubscribe');
      if (!indexed) await deps.store.update({ pk: 'INSTALL', sk: 'SECRETS' }, { remove: ['suppressionsIndexed'] });
      const looked: string[] = [];
      const batchGet = deps.store.batchGet.bind(deps.store);
      deps.store.batchGet = async (keys) => {
        looked.push(...keys.filter((k) => k.pk.startsWith('SUPPRESSED#')).map((k) => k.pk));
        return batchGet(keys);
      };
      const done = await importCsv(deps, { campaignId: c.id, file: csv(60) });
      expect(done, `indexed ${indexed}`).toMatchObject({ status: 'COMPLETED', imported: 58, suppressed: 2 });
      expect(looked.length, `indexed ${indexed}`).toBe(indexed ? 0 : 60);
    }
  });
});

describe('leads stored before lead ids were derived from the address', () => {
  it('count as duplicates for a single create and an import, and stop counting once deleted', async () => {
    const deps = unitDeps();
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    // As an earlier version stored it: a random id and a separate uniqueness item naming the address.
    const old = {
      ...leadKey('01OLDRANDOMID0000000000000'),
      id: '01OLDRANDOMID0000000000000',
      campaignId: c.id,
      email: 'p5@late.example',
      status: 'NEW',
      customFields: {},
    };
    await deps.store.put({ ...old, gsi1pk: `CAMPAIGN#${c.id}#LEADS`, gsi1sk: old.id, gsi2pk: 'LEADEMAIL#p5@late.example', gsi2sk: old.id });
    await deps.store.put({ ...legacyUniqueKey(c.id, 'p5@late.example'), leadId: old.id });
    await deps.store.update(campaignKey(c.id), { add: { leadsCount: 1 } });

    await expect(leads.create(deps, { campaignId: c.id, email: 'P5@late.example' })).rejects.toThrow(/already a lead/);
    expect(await importCsv(deps, { campaignId: c.id, file: csv(10) })).toMatchObject({ status: 'COMPLETED', imported: 9, duplicates: 1 });
    expect((await deps.store.get(campaignKey(c.id)))?.leadsCount).toBe(10);

    await leads.remove(deps, old.id);
    expect(await deps.store.get(legacyUniqueKey(c.id, 'p5@late.example'))).toBeUndefined();
    expect(await leads.create(deps, { campaignId: c.id, email: 'p5@late.example' })).toMatchObject({ email: 'p5@late.example' });
  });
});
