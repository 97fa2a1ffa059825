import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryAll } from '@outbound/core/collections';
import { leadsOfCampaign } from '@outbound/core/lead/keys';
import { ADMIN, Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, eventually } from '../helpers/fixtures.ts';
import { startEngineProcess } from '../helpers/process.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

/**
 * The import's life beyond one request: answered RUNNING with progress, the
 * upload link for files too large for a request body on AWS, two imports
 * into one campaign, a webhook racing an import, and a restart halfway.
 * Real time, so leases and progress writes happen as they would.
 */

let engine: TestEngine;
let api: Api;

beforeAll(async () => {
  // Answers at once: every import here is handed to the worker the stored file starts.
  engine = await startTestEngine({ realTime: true, importAnswerWithinMs: 0 });
  api = engine.api;
  await api.login();
});
afterAll(async () => {
  await engine?.stop();
});

const csvOf = (rows: number, prefix: string, extra = '') =>
  'email,first name,company,title\n' +
  Array.from({ length: rows }, (_, i) => `${prefix}${i}@imports.example,First${i},Co ${i % 7},Head of ${i % 3}`).join('\n') +
  extra;

async function postImport(a: Api, campaignId: string, csv: string) {
  const form = new FormData();
  form.append('campaignId', campaignId);
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'leads.csv');
  const res = await checkedFetch(`${a.url}/v1/leads/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function untilDone(a: Api, importId: string, timeoutMs = 120_000) {
  const seen: any[] = [];
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await a.request('GET', `/v1/leads/imports/${importId}`);
    expect(res.status).toBe(200);
    seen.push(res.body);
    if (res.body.status !== 'RUNNING') return { final: res.body, seen };
    if (Date.now() > end) throw new Error(`import ${importId} still RUNNING: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const leadsCount = async (a: Api, id: string) => (await a.request('GET', `/v1/campaigns/${id}`)).body.leadsCount;

describe('an import that outlasts its answer', { timeout: 180_000 }, () => {
  it('answers RUNNING at once, shows progress until COMPLETED, and ends with exact counts', async () => {
    const c = await campaign(api);
    expect((await api.request('POST', '/v1/leads', { campaignId: c.id, email: 'r5@imports.example' })).status).toBe(201);
    // 3,000 rows, one of them invalid, one repeated, one already in the campaign.
    const csv = csvOf(3000, 'r', '\nnot-an-address,X,Y,Z\nr7@imports.example,Again,Co,T\n');
    const res = await postImport(api, c.id, csv);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      importId: expect.any(String),
      campaignId: c.id,
      status: 'RUNNING',
      received: 3002,
      invalid: 1,
      finishedAt: null,
    });
    expect(res.body.errors).toEqual([{ row: 3002, error: expect.stringMatching(/^email: /) }]);

    const { final, seen } = await untilDone(api, res.body.importId);
    expect(final).toMatchObject({
      status: 'COMPLETED',
      received: 3002,
      imported: 2999,
      duplicates: 2,
      suppressed: 0,
      invalid: 1,
      rowsRead: 3002,
    });
    expect(Date.parse(final.finishedAt)).toBeGreaterThanOrEqual(Date.parse(final.startedAt));
    // Counts only grow while it runs.
    for (let i = 1; i < seen.length; i++) expect(seen[i].imported).toBeGreaterThanOrEqual(seen[i - 1].imported);
    expect(await leadsCount(api, c.id)).toBe(3000);
    expect((await queryAll(engine.deps.store, leadsOfCampaign(c.id))).length).toBe(3000);
    // The launch check's field counts include the imported leads.
    const check = (await api.request('GET', `/v1/campaigns/${c.id}/launch-check`)).body;
    expect(JSON.stringify(check)).not.toMatch(/firstName[^"]*missing/i);
  });

  it('answers 404 for an import that does not exist', async () => {
    const res = await api.request('GET', '/v1/leads/imports/01NOSUCHIMPORT000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/no import/);
  });
});

describe('two imports into one campaign, and a webhook racing them', { timeout: 180_000 }, () => {
  it('stores each address once and counts it once', async () => {
    const c = await campaign(api);
    const csv = csvOf(2000, 'twin');
    const [a, b] = await Promise.all([postImport(api, c.id, csv), postImport(api, c.id, csv)]);
    // The webhook feeds some of the same addresses while the imports run.
    const hooks = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api.request('POST', '/v1/leads/webhook', { campaignId: c.id, email: `twin${i * 50}@imports.example` }),
      ),
    );
    expect(hooks.every((h) => h.status === 200)).toBe(true);
    const [fa, fb] = await Promise.all([untilDone(api, a.body.importId), untilDone(api, b.body.importId)]);
    expect(fa.final.status).toBe('COMPLETED');
    expect(fb.final.status).toBe('COMPLETED');
    expect(fa.final.imported + fb.final.imported).toBeLessThanOrEqual(2000);
    expect(fa.final.imported + fa.final.duplicates).toBe(2000);
    expect(fb.final.imported + fb.final.duplicates).toBe(2000);
    const rows = await queryAll(engine.deps.store, leadsOfCampaign(c.id));
    expect(rows.length).toBe(2000);
    expect(new Set(rows.map((r) => r.email)).size).toBe(2000);
    expect(await leadsCount(api, c.id)).toBe(2000);
  });
});

describe('the upload link (files too large for a request body on AWS)', { timeout: 180_000 }, () => {
  it('takes the file at the signed link and imports it with the same worker and rules', async () => {
    const c = await campaign(api);
    const csv = csvOf(1500, 'up', '\n=cmd|calc,Evil,Co,T\nformula@imports.example,=HYPERLINK("x"),Co,T\n');
    const bytes = Buffer.byteLength(csv);
    const ticket = await api.request('POST', '/v1/leads/imports', { campaignId: c.id, bytes });
    expect(ticket.status).toBe(201);
    expect(ticket.body).toMatchObject({
      importId: expect.any(String),
      status: 'RUNNING',
      upload: { method: 'PUT', url: expect.stringMatching(/^http/), expiresAt: expect.any(String) },
    });
    // Before the file arrives the import waits for it.
    expect((await api.request('GET', `/v1/leads/imports/${ticket.body.importId}`)).body).toMatchObject({ status: 'RUNNING', received: 0 });

    // A body of another size than the link was made for is refused, and nothing starts.
    const wrong = await fetch(ticket.body.upload.url, { method: 'PUT', headers: ticket.body.upload.headers, body: csv + 'x' });
    expect(wrong.status).toBe(413);
    const tampered = await fetch(ticket.body.upload.url.replace(/bytes=\d+/, `bytes=${bytes + 1}`), {
      method: 'PUT',
      headers: ticket.body.upload.headers,
      body: csv + 'x',
    });
    expect(tampered.status).toBe(403);

    const put = await fetch(ticket.body.upload.url, { method: 'PUT', headers: ticket.body.upload.headers, body: csv });
    expect(put.status).toBe(200);
    const { final } = await untilDone(api, ticket.body.importId);
    expect(final).toMatchObject({ status: 'COMPLETED', received: 1502, imported: 1501, invalid: 1 });
    // The file is gone with its import (deleted right after the status is written), and the link cannot put it back.
    await eventually(
      async () => (await engine.deps.blobs.get(`imports/${ticket.body.importId}.csv`)) === undefined,
      20_000,
      'the uploaded file deleted',
    );
    const again = await fetch(ticket.body.upload.url, { method: 'PUT', headers: ticket.body.upload.headers, body: csv });
    expect(again.status).toBe(403);
    expect(((await again.json()) as { error: string }).error).toMatch(/used already/);
    expect(await engine.deps.blobs.get(`imports/${ticket.body.importId}.csv`)).toBeUndefined();
    const stored = await queryAll(engine.deps.store, leadsOfCampaign(c.id));
    // CSV-injection neutralising, as on every ingest path.
    expect(stored.find((l) => l.email === 'formula@imports.example')?.firstName).toBe('\'=HYPERLINK("x")');
  });

  it('answers 413 for a size over 10 MB, and ends a file over 50,000 rows FAILED with nothing stored', async () => {
    const c = await campaign(api);
    const big = await api.request('POST', '/v1/leads/imports', { campaignId: c.id, bytes: 10_485_761 });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatch(/10 MB/);

    const csv = 'email\n' + Array.from({ length: 50_001 }, (_, i) => `m${i}@x.io`).join('\n');
    const ticket = await api.request('POST', '/v1/leads/imports', { campaignId: c.id, bytes: Buffer.byteLength(csv) });
    expect(ticket.status).toBe(201);
    expect((await fetch(ticket.body.upload.url, { method: 'PUT', headers: ticket.body.upload.headers, body: csv })).status).toBe(200);
    const { final } = await untilDone(api, ticket.body.importId);
    expect(final).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/more than 50,000 rows/), imported: 0 });
    expect(await leadsCount(api, c.id)).toBe(0);
    expect((await queryAll(engine.deps.store, leadsOfCampaign(c.id))).length).toBe(0);
  });

  it('answers 422 for a missing size and 422 for an archived or unknown campaign', async () => {
    expect((await api.request('POST', '/v1/leads/imports', { campaignId: 'nope', bytes: 10 })).status).toBe(422);
    const c = await campaign(api);
    const res = await api.request('POST', '/v1/leads/imports', { campaignId: c.id });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^bytes /);
  });
});

describe('an engine killed halfway through an import', { timeout: 330_000 }, () => {
  let dataDir = '';
  let after: TestEngine | undefined;
  afterAll(async () => {
    await after?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('goes on after the restart and ends with every row stored and counted once', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-import-crash-'));
    const { child, url } = await startEngineProcess({ dataDir, admin: ADMIN, rateLimits: false, importAnswerWithinMs: 0 });
    const first = new Api(url);
    await first.login();
    const c = await campaign(first);
    const rows = 8000;
    const res = await postImport(first, c.id, csvOf(rows, 'k'));
    expect(res.body.status).toBe('RUNNING');
    // Killed once some rows are stored, and well before all are.
    for (;;) {
      const p = (await first.request('GET', `/v1/leads/imports/${res.body.importId}`)).body;
      if (p.imported > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    process.kill(-child.pid!, 'SIGKILL');
    await new Promise((r) => child.once('exit', r));

    after = await startTestEngine({ dataDir, tableName: 'outbound', admin: ADMIN, realTime: true });
    await after.api.login();
    // It waits for the killed worker's 15 s hold (the engine answers well before; the take-over comes as the hold
    // ends), then stores the rest at DynamoDB Local's on-disk rate, a few hundred rows a second, as a fresh import
    // there does (docs/leads-import.md): alone it ends about 40 s after the restart; beside the crash test on two
    // cores it took over 150 s.
    const { final } = await untilDone(after.api, res.body.importId, 240_000);
    expect(final).toMatchObject({ status: 'COMPLETED', received: rows, imported: rows, duplicates: 0, suppressed: 0 });
    expect((await queryAll(after.deps.store, leadsOfCampaign(c.id))).length).toBe(rows);
    expect(await leadsCount(after.api, c.id)).toBe(rows);
  });
});
