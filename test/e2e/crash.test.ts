import { spawn, type ChildProcess } from 'node:child_process';
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
import { checkedFetch } from '../helpers/openapi-check.ts';

/** 480 s of cadence is 4.8 ms; a follow-up a day later comes 0.9 s after the first email. */
const SCALE = 100_000;
const MAILBOXES = 10;
const LEADS = 150;
const KILLS = 6;
let dataDir: string;
let smtp: TestSmtpServer;
let after: TestEngine | undefined;
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  await after?.stop();
  await smtp?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The engine in a process group of its own, so SIGKILL takes DynamoDB Local with it, as a power cut would. */
async function startEngineProcess(): Promise<{ child: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'test/helpers/engine-process.ts'), JSON.stringify({ dataDir, timeScale: SCALE, admin: ADMIN, rateLimits: false })], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  const [, url] = await waitForLine(proc, /listening (\S+)/, 90_000);
  return { child: proc, url: url! };
}

const bare = (id: string | undefined) => String(id ?? '').replace(/^<|>$/g, '');

describe('a sender killed again and again while mail flows', { timeout: 300_000 }, () => {
  it('mails nobody twice, reports every email it could not send, and counts exactly what the server accepted', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-crash-'));
    const users = Object.fromEntries(Array.from({ length: MAILBOXES }, (_, i) => [`m${i}@crash.com`, 'crash-password']));
    smtp = await startSmtpServer({ users });

    let started = await startEngineProcess();
    child = started.child;
    const api = new Api(started.url);
    await api.login();
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'crash.com', mailingAddress: '1 Main St' })).body;
    const mailboxIds: string[] = [];
    for (const email of Object.keys(users)) {
      const box = await api.request('POST', '/v1/mailboxes', { email, domainId: domain.id, smtpHost: '127.0.0.1', smtpPort: smtp.port, authPassword: 'crash-password', dailyCap: 1000 });
      mailboxIds.push(box.body.id);
    }
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Crash', aiPromptTemplate: 'x', subject: 'Hi {{firstName}}', template: 'Hello {{firstName}}, a short note.', mailboxIds,
        steps: [{ waitDays: 1, body: 'Following up on my note.' }],
      })
    ).body;
    const form = new FormData();
    form.append('campaignId', campaign.id);
    form.append('file', new Blob(['email,first name\n' + Array.from({ length: LEADS }, (_, i) => `k${i}@x.test,K${i}`).join('\n')], { type: 'text/csv' }), 'k.csv');
    expect((await checkedFetch(`${started.url}/v1/leads/import`, { method: 'POST', headers: { authorization: `Bearer ${api.token}` }, body: form })).status).toBe(200);
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);

    // Kill at a random moment once mail flows, restart on the same DATA_DIR, wait for mail to flow again, and again.
    let kills = 0;
    while (kills < KILLS && smtp.messages.length < 2 * LEADS - 60) {
      const flowing = smtp.messages.length;
      await eventually(async () => smtp.messages.length > flowing, 60_000, `mail to flow after restart ${kills}`);
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 700));
      process.kill(-started.child.pid!, 'SIGKILL');
      await new Promise((r) => started.child.once('exit', r));
      kills++;
      started = await startEngineProcess();
      child = started.child;
    }
    process.kill(-started.child.pid!, 'SIGKILL');
    await new Promise((r) => started.child.once('exit', r));
    expect(kills).toBeGreaterThanOrEqual(3);

    after = await startTestEngine({ dataDir, tableName: 'outbound', admin: undefined, realTime: true, timeScale: SCALE });
    const jobs = await eventually(async () => {
      const all = await queryAll(after!.deps.store, { index: 'gsi2', pk: campaignJobs(campaign.id) });
      const firsts = all.filter((j) => Number(j.step) === 0);
      const followUpsDue = firsts.filter((j) => j.state === 'SENT').length;
      const done = (j: Record<string, unknown>) => ['SENT', 'FAILED', 'CANCELLED'].includes(String(j.state));
      return firsts.length === LEADS && all.length === LEADS + followUpsDue && all.every(done) ? all : undefined;
    }, 120_000, 'every email sent or reported after the last restart');
    await new Promise((r) => setTimeout(r, 500));

    // Nobody twice: each Message-ID once, each lead at most one first email and one follow-up.
    const received = new Map<string, number>();
    for (const m of smtp.messages) received.set(bare(m.messageId), (received.get(bare(m.messageId)) ?? 0) + 1);
    for (const [id, n] of received) expect(n, `message ${id}`).toBe(1);
    const byLead = new Map<string, { first: number; re: number }>();
    for (const m of smtp.messages) {
      const to = m.envelope.to[0]!;
      const seen = byLead.get(to) ?? { first: 0, re: 0 };
      if (m.subject?.startsWith('Re: ')) seen.re++;
      else seen.first++;
      byLead.set(to, seen);
    }
    for (const seen of byLead.values()) expect(Math.max(seen.first, seen.re)).toBeLessThanOrEqual(1);

    // Never silently missing: a confirmed SENT job's email arrived; one taken as sent after an unknown outcome says so.
    const sent = jobs.filter((j) => j.state === 'SENT');
    const confirmed = sent.filter((j) => !j.unconfirmed);
    for (const j of confirmed) expect(received.get(bare(String(j.messageId))), `job ${String(j.id)}`).toBe(1);
    for (const j of sent.filter((j) => j.unconfirmed)) expect(String(j.lastError)).toMatch(/outcome unknown/);
    expect(jobs.filter((j) => j.state === 'FAILED')).toEqual([]);
    expect(jobs.filter((j) => j.state === 'CANCELLED')).toEqual([]);
    // Every email the server took belongs to a job that says SENT.
    const known = new Set(sent.map((j) => bare(String(j.messageId))));
    for (const id of received.keys()) expect(known.has(id), `message ${id}`).toBe(true);

    // The campaign counts exactly the SENT jobs.
    await after.api.login();
    const counted = (await after.api.request('GET', `/v1/campaigns/${campaign.id}`)).body;
    expect(counted.sentCount).toBe(sent.length);
  });
});
