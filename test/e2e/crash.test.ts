import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { queryAll } from '@outbound/core/collections';
import { campaignJobs } from '@outbound/core/sending/keys';
import { ADMIN, Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { eventually } from '../helpers/fixtures.ts';
import { ROOT, waitForLine } from '../helpers/process.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const SCALE = 600;
let dataDir: string;
let smtp: TestSmtpServer;
let after: TestEngine | undefined;

afterAll(async () => {
  await after?.stop();
  await smtp?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a sender killed mid-campaign', { timeout: 150_000 }, () => {
  it('loses no email and mails nobody twice after a restart on the same DATA_DIR', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-crash-'));
    smtp = await startSmtpServer({ users: { 'crash@crash.com': 'crash-password' } });

    // The engine in a process group of its own, so SIGKILL takes DynamoDB Local with it, as a power cut would.
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'test/helpers/engine-process.ts'), JSON.stringify({ dataDir, timeScale: SCALE, admin: ADMIN, rateLimits: false })], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    const [, url] = await waitForLine(child, /listening (\S+)/, 90_000);
    const api = new Api(url!);
    await api.login();
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'crash.com', mailingAddress: '1 Main St' })).body;
    const box = (
      await api.request('POST', '/v1/mailboxes', { email: 'crash@crash.com', domainId: domain.id, smtpHost: '127.0.0.1', smtpPort: smtp.port, authPassword: 'crash-password', dailyCap: 1000 })
    ).body;
    const campaign = (await api.request('POST', '/v1/campaigns', { name: 'Crash', aiPromptTemplate: 'x', subject: 'Hi', template: 'Hello {{firstName}}, a short note.', mailboxIds: [box.id] })).body;
    const leads = Array.from({ length: 8 }, (_, i) => `k${i}@x.test`);
    for (const email of leads) expect((await api.request('POST', '/v1/leads', { campaignId: campaign.id, email })).status).toBe(201);
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);

    await eventually(async () => smtp.messages.length >= 3, 60_000, 'three emails before the kill');
    process.kill(-child.pid!, 'SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const beforeRestart = smtp.messages.length;

    after = await startTestEngine({ dataDir, tableName: 'outbound', admin: undefined, realTime: true, timeScale: SCALE });
    const jobs = await eventually(async () => {
      const all = await queryAll(after!.deps.store, { index: 'gsi2', pk: campaignJobs(campaign.id) });
      return all.length === 8 && all.every((j) => j.state === 'SENT' || j.state === 'FAILED') ? all : undefined;
    }, 90_000, 'every job to finish after the restart');

    const received = new Map<string, number>();
    for (const m of smtp.messages) received.set(m.envelope.to[0]!, (received.get(m.envelope.to[0]!) ?? 0) + 1);
    // Nobody twice.
    for (const count of received.values()) expect(count).toBe(1);
    // Nothing lost: every job that says SENT reached its address; a FAILED one is only ever the one a kill left in doubt.
    const failed = jobs.filter((j) => j.state === 'FAILED');
    expect(failed.length).toBeLessThanOrEqual(1);
    for (const j of failed) expect(String(j.lastError)).toMatch(/outcome unknown/);
    const leadsById = new Map((await after.api.login(), (await after.api.request('GET', `/v1/leads?campaignId=${campaign.id}`)).body.leads).map((l: { id: string; email: string }) => [l.id, l.email]));
    for (const j of jobs.filter((x) => x.state === 'SENT')) expect(received.get(leadsById.get(String(j.leadId)) as string)).toBe(1);
    expect(received.size).toBeGreaterThanOrEqual(7);
    expect(smtp.messages.length).toBeGreaterThan(beforeRestart);
  });
});
