import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryAll } from '@outbound/core/collections';
import { campaignJobs, jobId } from '@outbound/core/sending/keys';
import { getJob } from '@outbound/core/sending/jobs';
import type { Clock } from '@outbound/core/ports/clock';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { eventually, smtpMailbox } from '../helpers/fixtures.ts';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';
import { startFaultySmtpServer, type FaultySmtpServer } from '../helpers/smtp-faults.ts';
import { waitFor } from '../helpers/wait-for.ts';

// 480 s of engine time is 0.8 s of wall time: cadence shows on arrival times.
const SCALE = 600;
const FLOOR_WALL_MS = (480 * 1000) / SCALE;
const ADDRESS = '1 Main St\nSpringfield';

/**
 * The engine clock, TIME_SCALE times the wall, started an hour after a UTC
 * midnight: the next day (when daily caps reset) is 23 engine hours away,
 * far beyond any wait here.
 */
function scaledFromMorning(): Clock {
  const start = Date.now();
  const t0 = Math.floor(start / 86_400_000) * 86_400_000 + 86_400_000 + 3_600_000;
  return { now: () => t0 + (Date.now() - start) * SCALE };
}

let smtp: TestSmtpServer;
let engine: TestEngine;
const users: Record<string, string> = {};
for (const n of ['cap', 'supp', 'pause', 'queue']) users[`${n}@ctl.com`] = `${n}-password`;

beforeAll(async () => {
  smtp = await startSmtpServer({ users });
  engine = await startTestEngine({ realTime: true, timeScale: SCALE, clock: scaledFromMorning() });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
});

const to = (m: ReceivedMessage) => m.envelope.to[0]!;
const mailTo = (addresses: string[]) => smtp.messages.filter((m) => addresses.includes(to(m)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let domain: { id: string; domainName: string } | undefined;
async function setup(local: string, leads: string[], extra: Record<string, unknown> = {}) {
  const api = engine.api;
  domain ??= (await api.request('POST', '/v1/domains', { domainName: 'ctl.com', mailingAddress: ADDRESS })).body;
  const box = await smtpMailbox(api, domain!, local, smtp, extra);
  const campaign = (
    await api.request('POST', '/v1/campaigns', {
      name: local,
      aiPromptTemplate: 'x',
      subject: 'Hi {{firstName}}',
      template: 'Hello {{firstName}}, a short note from us.',
      mailboxIds: [box.id],
    })
  ).body;
  const ids: string[] = [];
  for (const email of leads)
    ids.push((await api.request('POST', '/v1/leads', { campaignId: campaign.id, email, firstName: email.split('@')[0] })).body.id);
  return { box, campaign, ids };
}

describe('cadence and daily cap', () => {
  it('spaces one mailbox’s sends by at least 480 s of engine time and stops at its daily cap', async () => {
    const leads = ['c1@x.test', 'c2@x.test', 'c3@x.test', 'c4@x.test', 'c5@x.test'];
    const { campaign, ids } = await setup('cap', leads, { dailyCap: 3 });
    await engine.api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
    await eventually(async () => mailTo(leads).length >= 3, 30_000, 'three emails');
    // Well past two more cadence slots: the cap holds the rest until the next UTC day.
    await sleep(4 * FLOOR_WALL_MS);
    const sent = mailTo(leads);
    expect(sent).toHaveLength(3);
    // The spacing as the engine booked it (each claim takes the mailbox's slot at its engine time): arrival
    // times add each send's SMTP time, which a loaded machine stretches for one send and not the next.
    const claims = (await Promise.all(ids.map((id) => getJob(engine.deps, jobId(id, 0)))))
      .filter((j) => j?.state === 'SENT')
      .map((j) => j!.claimedAt!)
      .sort((a, b) => a - b);
    expect(claims).toHaveLength(3);
    for (let i = 1; i < claims.length; i++) expect(claims[i]! - claims[i - 1]!).toBeGreaterThanOrEqual(480_000);
    const dayAfter = Math.floor(engine.deps.clock.now() / 86_400_000) * 86_400_000 + 86_400_000;
    const held = await eventually(
      async () => {
        const jobs = await Promise.all(ids.map((id) => getJob(engine.deps, jobId(id, 0))));
        const waiting = jobs.filter((j) => j && j.state !== 'SENT');
        return waiting.length === 2 && waiting.every((j) => Number(j!.dueAt) >= dayAfter) ? waiting : undefined;
      },
      10_000,
      'the two over the cap to wait for the next day',
    );
    expect(held).toHaveLength(2);
    const status = (await engine.api.request('GET', '/v1/queue/status')).body;
    expect(status.counts.delayed).toBeGreaterThanOrEqual(2);
    expect(status.jobs.some((j: { id: string; state: string }) => j.id === held[0]!.id && j.state === 'delayed')).toBe(true);
  });
});

describe('suppression while queued', () => {
  it('refuses at send time a lead suppressed after its email was planned', async () => {
    const leads = ['s1@x.test', 's2@x.test'];
    const { campaign, ids } = await setup('supp', leads);
    const [keptId, stoppedId] = ids as [string, string];
    // The whole queue held while the lead is suppressed, so the suppression surely lands before its send: the emails
    // are 0.8 s apart, which a loaded machine can spend between reading a job and the suppress request.
    expect((await engine.api.request('POST', '/v1/queue/pause', { paused: true })).status).toBe(200);
    try {
      expect((await engine.api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);
      expect((await engine.api.request('POST', `/v1/leads/${stoppedId}/suppress`)).status).toBe(200);
      // Suppressing cancels no job: stopping this one is the send path's own check.
      expect(['SCHEDULED', 'QUEUED']).toContain((await getJob(engine.deps, jobId(stoppedId, 0)))?.state);
    } finally {
      await engine.api.request('POST', '/v1/queue/pause', { paused: false });
    }
    await eventually(
      async () => (await getJob(engine.deps, jobId(stoppedId, 0)))?.state === 'CANCELLED',
      20_000,
      'the planned job to be cancelled',
    );
    expect(await getJob(engine.deps, jobId(stoppedId, 0))).toMatchObject({ reason: expect.stringMatching(/suppressed/) });
    await eventually(async () => mailTo([leads[0]!]).length >= 1, 20_000, "the other lead's email");
    expect((await getJob(engine.deps, jobId(keptId, 0)))?.state).toBe('SENT');
    expect(mailTo([leads[1]!])).toHaveLength(0);
  });
});

describe('pause and resume', () => {
  it('a paused campaign sends nothing; launching again continues where it stopped, without resending', async () => {
    const leads = ['p1@x.test', 'p2@x.test', 'p3@x.test'];
    const { campaign } = await setup('pause', leads);
    await engine.api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
    await eventually(async () => mailTo(leads).length >= 1, 20_000, 'the first email');
    expect((await engine.api.request('POST', `/v1/campaigns/${campaign.id}/pause`)).body.status).toBe('PAUSED');
    const atPause = mailTo(leads).length;
    await sleep(5 * FLOOR_WALL_MS);
    // One send may have been past its last check when the pause landed; none after.
    expect(mailTo(leads).length).toBeLessThanOrEqual(atPause + 1);
    const afterWait = mailTo(leads).length;
    if (afterWait < 3) {
      const jobs = await queryAll(engine.deps.store, { index: 'gsi2', pk: campaignJobs(campaign.id) });
      expect(jobs.filter((j) => j.state === 'PARKED' || j.state === 'SCHEDULED' || j.state === 'QUEUED').length).toBe(3 - afterWait);
    }
    expect((await engine.api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);
    await eventually(async () => mailTo(leads).length >= 3, 30_000, 'the rest after resume');
    await sleep(3 * FLOOR_WALL_MS);
    expect(mailTo(leads).map(to).sort()).toEqual(leads);
  });

  it('a paused queue sends nothing at all, and says so; resuming sends what waited', async () => {
    const paused = await engine.api.request('POST', '/v1/queue/pause', { paused: true });
    expect(paused.status).toBe(200);
    expect(paused.body.isPaused).toBe(true);
    expect(Object.keys(paused.body.counts).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'unconfirmed', 'waiting']);
    try {
      const leads = ['q1@x.test', 'q2@x.test'];
      const { campaign } = await setup('queue', leads);
      await engine.api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
      await sleep(4 * FLOOR_WALL_MS);
      expect(mailTo(leads)).toHaveLength(0);
      const status = (await engine.api.request('GET', '/v1/queue/status')).body;
      expect(status.isPaused).toBe(true);
      expect(status.counts.waiting + status.counts.delayed).toBeGreaterThanOrEqual(2);
    } finally {
      expect((await engine.api.request('POST', '/v1/queue/pause', { paused: false })).body.isPaused).toBe(false);
    }
    await eventually(async () => mailTo(['q1@x.test', 'q2@x.test']).length === 2, 30_000, 'both after resume');
    expect((await engine.api.request('POST', '/v1/queue/pause', {})).status).toBe(422);
  });
});

describe('bounce circuit breaker', { timeout: 120_000 }, () => {
  let faulty: FaultySmtpServer;
  let fast: TestEngine;
  beforeAll(async () => {
    faulty = await startFaultySmtpServer({
      users: { 'brk@brk.com': 'brk-password' },
      rejectRecipients: { 'gone1@x.test': 550, 'gone2@x.test': 550, 'busy@x.test': 451 },
    });
    // The breaker counts the pair's last 7 days of engine time: at 10,000x that is a minute of wall time, which the
    // 33 sends fit in on a loaded machine (at 50,000x, 12 s, which a loaded machine's sends could outlast).
    fast = await startTestEngine({ realTime: true, timeScale: 10_000 });
    await fast.api.login();
  });
  afterAll(async () => {
    await fast?.stop();
    await faulty?.stop();
  });

  it('pauses the pair after 20 sends once its bounce rate passes 5 %, suppresses bounced addresses, retries a 4xx, and resumes on PATCH', async () => {
    const api = fast.api;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'brk.com', mailingAddress: ADDRESS })).body;
    const box = (
      await api.request('POST', '/v1/mailboxes', {
        email: 'brk@brk.com',
        domainId: domain.id,
        smtpHost: '127.0.0.1',
        smtpPort: faulty.port,
        authPassword: 'brk-password',
        senderName: 'B',
        dailyCap: 1000,
      })
    ).body;
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Breaker',
        aiPromptTemplate: 'x',
        subject: 'Hi',
        template: 'Hello {{firstName}}, a short note.',
        mailboxIds: [box.id],
      })
    ).body;
    const good = Array.from({ length: 30 }, (_, i) => `ok${i}@x.test`);
    const leads = ['gone1@x.test', 'gone2@x.test', 'busy@x.test', ...good];
    const ids: Record<string, string> = {};
    for (const email of leads)
      ids[email] = (await api.request('POST', '/v1/leads', { campaignId: campaign.id, email, firstName: 'F' })).body.id;
    await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);

    await eventually(
      async () => (await api.request('GET', `/v1/campaigns/${campaign.id}`)).body.pausedForBounceRate === true,
      60_000,
      'the breaker to trip',
    );
    const check = (await api.request('GET', `/v1/campaigns/${campaign.id}/launch-check`)).body;
    expect(check.problems.map((p: { code: string }) => p.code)).toContain('BOUNCE_PAUSED');

    const delivered = () => new Set(faulty.messages.map((raw) => /^To: (.*)$/m.exec(raw)?.[1]?.trim()));
    // The trip is written before the campaign shows it, and a claim is refused once the pair is tripped: what still
    // sends is what was claimed by then. Wait for those sends to end (a fixed 500 ms was too short for a loaded machine).
    await waitFor(
      async () => {
        const jobs = await queryAll(fast.deps.store, { index: 'gsi2', pk: campaignJobs(campaign.id) });
        return !jobs.some((j) => j.state === 'CLAIMED');
      },
      { timeoutMs: 30_000, describe: 'the sends claimed before the trip to end' },
    );
    const atTrip = delivered().size;
    // Tripped at the 20th send at the latest (2 bounces in 20 is 10 %), give or take sends already under way.
    expect(atTrip).toBeLessThan(good.length);
    await sleep(1000);
    expect(delivered().size).toBe(atTrip);

    for (const gone of ['gone1@x.test', 'gone2@x.test']) {
      const lead = (await api.request('GET', `/v1/leads?campaignId=${campaign.id}&limit=1000`)).body.leads.find(
        (l: { email: string }) => l.email === gone,
      );
      expect(lead.status).toBe('BOUNCED');
      // Suppressed install-wide: another campaign cannot take the address.
      const other = (await api.request('POST', '/v1/campaigns', { name: 'Other', aiPromptTemplate: 'x' })).body;
      expect((await api.request('POST', '/v1/leads', { campaignId: other.id, email: gone })).status).toBe(409);
    }

    const resumed = await api.request('PATCH', `/v1/campaigns/${campaign.id}`, { pausedForBounceRate: false });
    expect(resumed.body.pausedForBounceRate).toBe(false);
    await eventually(async () => good.every((g) => delivered().has(g)), 60_000, 'every good address after resume');
    expect(faulty.messages.filter((raw) => /^To: ok0@x\.test/m.test(raw))).toHaveLength(1);

    // A 4xx is retried with back-off, then fails; it is not a bounce.
    const busy = await eventually(
      async () => {
        const job = await getJob(fast.deps, jobId(ids['busy@x.test']!, 0));
        return job && job.state === 'FAILED' ? job : undefined;
      },
      30_000,
      'the 451 to be retried',
    );
    expect(busy.lastError).toMatch(/temporary 451/);
    // Tried once and retried four times (5, 30, 120 and 360 engine minutes later), then given up.
    expect(Number(busy.attempts)).toBe(5);
    const busyLead = (await api.request('GET', `/v1/leads?campaignId=${campaign.id}&limit=1000`)).body.leads.find(
      (l: { email: string }) => l.email === 'busy@x.test',
    );
    expect(busyLead.status).not.toBe('BOUNCED');
  });
});
