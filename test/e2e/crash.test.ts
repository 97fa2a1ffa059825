import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { queryAll } from '@outbound/core/collections';
import { campaignJobs } from '@outbound/core/sending/keys';
import { leadsOfCampaign } from '@outbound/core/lead/keys';
import { campaignKey, counter } from '@outbound/core/campaign/keys';
import { ADMIN, Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { eventually } from '../helpers/fixtures.ts';
import { startEngineProcess as spawnEngine } from '../helpers/process.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

/** 480 s of cadence is 4.8 ms; a follow-up a day later comes 0.9 s after the first email. */
const SCALE = 100_000;
const MAILBOXES = 10;
const LEADS = 300;
const KILLS = 8;
/** Wall time with nothing becoming final after which the campaign is taken for stuck (the holds a killed engine leaves are engine time, 100,000 times faster here). */
const STALL_MS = 90_000;
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

/** The engine in a process group of its own (SIGKILL takes DynamoDB Local with it), on this test's DATA_DIR. */
const startEngineProcess = () => spawnEngine({ dataDir, timeScale: SCALE, admin: ADMIN, rateLimits: false });

const bare = (id: string | undefined) => String(id ?? '').replace(/^<|>$/g, '');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a sender killed again and again while mail flows', { timeout: 900_000 }, () => {
  it('mails nobody twice, leaves no lead waiting, and misses at most one email per kill', async () => {
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
      const box = await api.request('POST', '/v1/mailboxes', {
        email,
        domainId: domain.id,
        smtpHost: '127.0.0.1',
        smtpPort: smtp.port,
        authPassword: 'crash-password',
        dailyCap: 1000,
      });
      mailboxIds.push(box.body.id);
    }
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Crash',
        aiPromptTemplate: 'x',
        subject: 'Hi {{firstName}}',
        template: 'Hello {{firstName}}, a short note.',
        mailboxIds,
        // Two variants of the first email: each lead is given one exactly once, and the counts stay within 2, whatever the kills.
        variants: [
          { subject: 'Hi {{firstName}}', template: 'Hello {{firstName}}, a short note.' },
          { subject: 'Hello {{firstName}}', template: 'Hi {{firstName}}, the other note.' },
        ],
        steps: [{ waitDays: 1, body: 'Following up on my note.' }],
      })
    ).body;
    const form = new FormData();
    form.append('campaignId', campaign.id);
    form.append(
      'file',
      new Blob(['email,first name\n' + Array.from({ length: LEADS }, (_, i) => `k${i}@x.test,K${i}`).join('\n')], { type: 'text/csv' }),
      'k.csv',
    );
    expect(
      (
        await checkedFetch(`${started.url}/v1/leads/import`, {
          method: 'POST',
          headers: { authorization: `Bearer ${api.token}` },
          body: form,
        })
      ).status,
    ).toBe(200);
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);

    // Kill at a random moment while mail flows: after a random few emails have arrived since the restart (so the
    // kills are spread over the run whatever the machine's speed), plus a random few milliseconds. Then restart on
    // the same DATA_DIR and again. Each kill's wall time is kept, to tell which kill left which outcome unknown.
    const killedAt: number[] = [];
    const resumedInMs: number[] = [];
    const kill = async () => {
      process.kill(-started.child.pid!, 'SIGKILL');
      killedAt.push(Date.now());
      await new Promise((r) => started.child.once('exit', r));
    };
    while (killedAt.length < KILLS) {
      const flowing = smtp.messages.length;
      const burst = 5 + Math.floor(Math.random() * 20);
      await eventually(async () => smtp.messages.length >= flowing + burst, 120_000, `mail to flow after restart ${killedAt.length}`);
      await pause(Math.random() * 30);
      await kill();
      started = await startEngineProcess();
      child = started.child;
      // How long after the engine answers mail goes again (a figure, not an assertion: the machine may be loaded).
      const answered = Date.now();
      const before = smtp.messages.length;
      void eventually(async () => smtp.messages.length > before, 120_000).then(
        () => resumedInMs.push(Date.now() - answered),
        () => undefined,
      );
    }
    // Once more after mail flows again, and this kill counts too: the engine is then started for the count.
    const last = smtp.messages.length;
    await eventually(
      async () => smtp.messages.length > last || smtp.messages.length >= 2 * LEADS,
      120_000,
      'mail to flow after the last restart',
    );
    await kill();

    after = await startTestEngine({ dataDir, tableName: 'outbound', admin: undefined, realTime: true, timeScale: SCALE });
    // The campaign is over when every job is final and every lead's sequence has ended. What is left after the last
    // kill is up to a few hundred emails, which a loaded machine sends at its own pace: the wait ends in failure only
    // when nothing becomes final for STALL_MS, and then shows what was left (the jobs not final, the open leads).
    const done = (j: Record<string, unknown>) => ['SENT', 'FAILED', 'CANCELLED'].includes(String(j.state));
    let left: unknown;
    let finals = -1;
    let movedAt = Date.now();
    const over = await waitFor(
      async () => {
        const all = await queryAll(after!.deps.store, { index: 'gsi2', pk: campaignJobs(campaign.id) });
        const rows = await queryAll(after!.deps.store, leadsOfCampaign(campaign.id));
        const open = rows.filter((l) => ['NEW', 'CONTACTED'].includes(String(l.status)));
        left = {
          jobs: all.length,
          final: all.filter(done).length,
          notFinal: all
            .filter((j) => !done(j))
            .slice(0, 10)
            .map((j) => ({ state: j.state, kind: j.kind, step: j.step, dueAt: j.dueAt, claimUntil: j.claimUntil, leadId: j.leadId })),
          openLeads: open.slice(0, 10).map((l) => ({ id: l.id, status: l.status, variant: l.variant })),
          engineNow: after!.deps.clock.now(),
        };
        if (all.length === 2 * LEADS && all.every(done) && open.length === 0) return { jobs: all, leads: rows };
        const nowFinal = all.filter(done).length + rows.length - open.length;
        if (nowFinal > finals) [finals, movedAt] = [nowFinal, Date.now()];
        return Date.now() - movedAt > STALL_MS ? { stalled: left } : undefined;
      },
      { timeoutMs: 420_000, intervalMs: 500, describe: 'the campaign to be over after the last restart', lastSeen: () => left },
    );
    if ('stalled' in over)
      throw new Error(`nothing became final for ${STALL_MS / 1000} s after the last restart: ${JSON.stringify(over.stalled)}`);
    const { jobs, leads } = over;
    await pause(500);

    // Nobody twice: each Message-ID once, each lead at most one first email and one follow-up.
    const received = new Map<string, number>();
    for (const m of smtp.messages) received.set(bare(m.messageId), (received.get(bare(m.messageId)) ?? 0) + 1);
    const byLead = new Map<string, { first: number; re: number }>();
    for (const m of smtp.messages) {
      const seen = byLead.get(m.envelope.to[0]!) ?? { first: 0, re: 0 };
      if (m.subject?.startsWith('Re: ')) seen.re++;
      else seen.first++;
      byLead.set(m.envelope.to[0]!, seen);
    }
    const duplicates =
      [...received.values()].filter((n) => n > 1).length + [...byLead.values()].filter((s) => s.first > 1 || s.re > 1).length;

    const sent = jobs.filter((j) => j.state === 'SENT');
    const unconfirmed = sent.filter((j) => j.unconfirmed === true);
    const missing = unconfirmed.filter((j) => !received.has(bare(String(j.messageId))));
    // Which kill caught each unknown outcome: the first kill after its start of SMTP was marked.
    const caughtBy = (j: Record<string, unknown>) => killedAt.findIndex((t) => t >= Number(j.smtpStartedAt));
    const killsInWindow = new Set(unconfirmed.map(caughtBy)).size;
    const missingPerKill = killedAt.map((_, k) => missing.filter((j) => caughtBy(j) === k).length);
    const hanging = leads.filter((l) => ['NEW', 'CONTACTED'].includes(String(l.status))).length;
    await after.api.login();
    const status = (await after.api.request('GET', '/v1/queue/status')).body;
    const counted = (await after.api.request('GET', `/v1/campaigns/${campaign.id}`)).body;
    console.log(
      `crash test: ${killedAt.length} kills; ${2 * LEADS} emails planned, ${sent.length} SENT (${unconfirmed.length} unconfirmed: ` +
        `${unconfirmed.length - missing.length} arrived, ${missing.length} missing), ${smtp.messages.length} received by the SMTP server, ` +
        `${duplicates} duplicates, ${hanging} leads left NEW or CONTACTED; ${killsInWindow} of ${killedAt.length} kills landed in a send's ` +
        `unknown window, ${(unconfirmed.length / killedAt.length).toFixed(2)} unknown outcomes per kill over ${MAILBOXES} mailboxes sending at once; ` +
        `emails missing per kill [${missingPerKill.join(', ')}]; queue status unconfirmed ${status.counts.unconfirmed}; ` +
        `mail again ${resumedInMs.length ? Math.max(...resumedInMs) : '?'} ms at most after a restart answered`,
    );

    expect(duplicates).toBe(0);
    expect(hanging).toBe(0);
    // Taken as sent, never failed: every job went (or is taken as gone), and the lead moved on.
    expect(jobs.filter((j) => j.state !== 'SENT')).toEqual([]);
    expect(leads.every((l) => l.status === 'COMPLETED')).toBe(true);
    // At most one email missing per kill, and only where a kill left the outcome unknown.
    expect(2 * LEADS - received.size).toBe(missing.length);
    for (const n of missingPerKill) expect(n).toBeLessThanOrEqual(1);
    // A confirmed send arrived; every email the server took belongs to a SENT job.
    for (const j of sent.filter((j) => j.unconfirmed !== true))
      expect(received.get(bare(String(j.messageId))), `job ${String(j.id)}`).toBe(1);
    const known = new Set(sent.map((j) => bare(String(j.messageId))));
    for (const id of received.keys()) expect(known.has(id), `message ${id}`).toBe(true);
    for (const j of unconfirmed) expect(String(j.lastError)).toMatch(/outcome unknown/);
    // The campaign and the queue count exactly what the jobs say.
    expect(counted.sentCount).toBe(sent.length);
    // Variants: each lead was given one, exactly once; the counts stay within 2; the figures count each lead's first email once;
    // and each first email that arrived is its lead's variant.
    const variantOf = new Map(leads.map((l) => [String(l.email), l.variant]));
    expect([...variantOf.values()].every((v) => v === 0 || v === 1)).toBe(true);
    const perVariant = [0, 1].map((v) => [...variantOf.values()].filter((x) => x === v).length);
    expect(Math.abs(perVariant[0]! - perVariant[1]!)).toBeLessThanOrEqual(2);
    const figures = (await after.api.request('GET', `/v1/campaigns/${campaign.id}/variants`)).body;
    expect(figures.variants.map((v: { sent: number }) => v.sent)).toEqual(perVariant);
    const counters = (await after.deps.store.get(campaignKey(campaign.id)))!;
    expect([0, 1].map((v) => counters[counter.variant(v, 'assigned')])).toEqual(perVariant);
    for (const m of smtp.messages.filter((m) => !m.subject?.startsWith('Re: '))) {
      expect(m.text, m.envelope.to[0]).toContain(variantOf.get(m.envelope.to[0]!) === 0 ? 'a short note' : 'the other note');
    }
    console.log(`crash test: variants given ${perVariant.join(' / ')}`);
    expect(status.counts).toMatchObject({ completed: sent.length, unconfirmed: unconfirmed.length, failed: 0 });
  });
});
