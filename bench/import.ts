/**
 * The import figure of `npm run bench`: a 50,000-row, ~10 MB CSV through
 * POST /v1/leads/import next to the raw limit of the same work in the same
 * run (csv-parse of the same file, then concurrent BatchWriteItem of one item
 * per row into the same DynamoDB Local), with the store requests counted by a
 * middleware on the engine's DynamoDB client.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startEngine } from '@outbound/local/engine';
import { suppress } from '@outbound/core/suppression/index';

const ADMIN = { email: 'bench@outbound.test', password: 'bench password 123' };

/** A realistic lead list: standard columns and a few custom ones, padded to about 200 bytes a row. */
export function leadCsv(rows: number, targetBytes = 10_000_000): string {
  const header = 'email,first name,last name,company,title,city,website,notes';
  const pad = Math.max(0, Math.floor(targetBytes / rows) - 110);
  const note = 'n'.repeat(pad);
  const lines = [header];
  for (let i = 0; i < rows; i++) {
    lines.push(
      `lead${i}@example${i % 211}.org,First${i},Last${i},Company ${i % 997},Head of Sales,City ${i % 53},https://c${i % 997}.example.com,${note}`,
    );
  }
  return lines.join('\n');
}

/** Counts every request the client sends, by command name. */
export function countRequests(client: DynamoDBClient) {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      counts.set(context.commandName ?? '?', (counts.get(context.commandName ?? '?') ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `benchRequestCounter${randomUUID()}` },
  );
  return {
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    reset: () => counts.clear(),
    byCommand: () => Object.fromEntries(counts),
  };
}

export async function benchImport(dataDir: string, rows = 50_000): Promise<void> {
  const engine = await startEngine({
    port: 0,
    dataDir,
    admin: ADMIN,
    rateLimits: false,
    importAnswerWithinMs: process.env.ANSWER_MS ? Number(process.env.ANSWER_MS) : undefined,
    sink: (l) => {
      if (l.level === 'error') console.error(JSON.stringify(l).slice(0, 600));
    },
  });
  try {
    const requests = countRequests(engine.clients.dynamo);
    const login = await fetch(engine.url + '/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const auth = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
    const campaign = (await (
      await fetch(engine.url + '/v1/campaigns', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Import bench',
          aiPromptTemplate: 'x',
          subject: 'Hi {{firstName}}',
          template: 'Hello {{firstName}}.',
        }),
      })
    ).json()) as { id: string };
    const csv = leadCsv(rows);
    const bytes = Buffer.byteLength(csv);
    // A suppression list as an installation in use has one: 2,000 addresses, half of them in the file.
    const listed = Array.from({ length: 2000 }, (_, i) =>
      i % 2 ? `lead${i * 7}@example${(i * 7) % 211}.org` : `gone${i}@elsewhere.example`,
    );
    for (let i = 0; i < listed.length; i += 50)
      await Promise.all(listed.slice(i, i + 50).map((email) => suppress(engine.deps, email, 'unsubscribe')));

    // The raw limit: parse the same file, write one item per row with concurrent BatchWriteItem. Measured before
    // and after the import (the machines are shared and noisy); the figure is against their mean.
    const raw = async () => {
      const start = performance.now();
      const records = parse(csv, { columns: true }) as Record<string, string>[];
      await engine.deps.store.batchPut(records.map((r) => ({ pk: `BENCH#${randomUUID()}`, sk: 'ROW', ...r })));
      return performance.now() - start;
    };
    const rawBefore = await raw();

    requests.reset();
    const form = new FormData();
    form.append('campaignId', campaign.id);
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'leads.csv');
    const start = performance.now();
    const res = await fetch(engine.url + '/v1/leads/import', { method: 'POST', headers: auth, body: form });
    let body = (await res.json()) as { importId?: string; status?: string; imported: number; suppressed: number };
    const answerMs = performance.now() - start;
    if (res.status !== 200) throw new Error(`import: ${res.status} ${JSON.stringify(body)}`);
    while (body.status === 'RUNNING') {
      await new Promise((r) => setTimeout(r, 1000));
      body = (await (await fetch(`${engine.url}/v1/leads/imports/${body.importId}`, { headers: auth })).json()) as typeof body;
    }
    const importMs = performance.now() - start;
    const n = requests.total();
    const byCommand = requests.byCommand();
    const rawAfter = await raw();
    const rawMs = (rawBefore + rawAfter) / 2;
    const where = dataDir === 'memory' ? 'in memory' : 'on disk';
    console.log(
      `CSV import, ${rows.toLocaleString('en-US')} rows, ${(bytes / 1_048_576).toFixed(1)} MB, ${where}: ${(importMs / 1000).toFixed(1)} s = ${(importMs / rawMs).toFixed(2)}x raw (${(rawMs / 1000).toFixed(1)} s, mean of ${(rawBefore / 1000).toFixed(1)} s before and ${(rawAfter / 1000).toFixed(1)} s after: csv-parse + concurrent BatchWriteItem of ${rows.toLocaleString('en-US')} items); answered in ${(answerMs / 1000).toFixed(1)} s; ${body.status}: ${body.imported} imported, ${body.suppressed} suppressed (of a 2,000-address suppression list)`,
    );
    console.log(`  store requests: ${n} = ${(n / Math.max(1, body.imported)).toFixed(3)} per imported lead ${JSON.stringify(byCommand)}`);
  } finally {
    await engine.stop();
  }
}

/** The import figure in memory and on disk (ROWS to change the size; ONLY=memory to skip the disk). */
export async function importFigures(): Promise<void> {
  const rows = Number(process.env.ROWS ?? 50_000);
  await benchImport('memory', rows);
  if (process.env.ONLY === 'memory') return;
  const dir = await mkdtemp(join(tmpdir(), 'outbound-bench-'));
  try {
    await benchImport(dir, rows);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await importFigures();
