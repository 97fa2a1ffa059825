import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJob, move } from '@outbound/core/sending/jobs';
import { dispatch } from '@outbound/core/sending/dispatcher';
import { probeJobId } from '@outbound/core/placement/keys';
import { tick } from '@outbound/core/placement/reader';
import { pairKey } from '@outbound/core/guardrails/breaker.keys';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually, smtpMailbox } from '../helpers/fixtures.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';
import { startFaultySmtpServer, type FaultySmtpServer } from '../helpers/smtp-faults.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

// Ten minutes of engine time pass in 40 ms: the cadence between two samples and the reads minutes later take seconds.
// Not faster: a run gives up on a sample not sent within two days of engine time, and at 50,000x that is 3.5 s of
// wall time, which a loaded machine's queue and dispatcher ticks can use up before the last sample goes (it did in CI).
const SCALE = 15_000;
const PASS = 'seed-password';
/** Where the "provider" files each seed's sample: the test plays the seeds' spam filters. */
const FILED: Record<string, 'INBOX' | 'Junk' | 'nowhere'> = {
  'inbox@gseeds.test': 'INBOX',
  'spam@gseeds.test': 'Junk',
  'lost@mseeds.test': 'nowhere',
  'inbox@mseeds.test': 'INBOX',
};

/** Seeds of the test that reads by hand: their samples are filed late, or never. */
const SLOW = ['late@lseeds.test', 'never@lseeds.test', 'doubt@lseeds.test'];

let dovecot: TestDovecot;
let smtp: TestSmtpServer;
let dropping: FaultySmtpServer;
let engine: TestEngine;

beforeAll(async () => {
  dovecot = await startDovecot(Object.fromEntries([...Object.keys(FILED), ...SLOW].map((seed) => [seed, PASS])));
  dropping = await startFaultySmtpServer({ users: { 'd@slow.com': 'd-password' }, dropAfterData: true });
  smtp = await startSmtpServer({
    users: {
      'a@place.com': 'a-password',
      'b@place.com': 'b-password',
      'c@other.com': 'c-password',
      'e@slow.com': 'e-password',
      'f@slow.com': 'f-password',
      'g@crash.com': 'g-password',
    },
    // Filed before the server says 250, so the seed holds it by the time the engine records the send.
    onMessage: async (m: ReceivedMessage) => {
      const seed = m.envelope.to[0]!;
      const where = FILED[seed];
      if (where && where !== 'nowhere') await dovecot.deliver(seed, m.raw, where);
    },
  });
  engine = await startTestEngine({ realTime: true, timeScale: SCALE });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
  await dropping?.stop();
  await dovecot?.stop();
});

const seedBody = (email: string, provider: string) => ({
  email,
  provider,
  imapHost: '127.0.0.1',
  imapPort: dovecot.imapPort,
  password: PASS,
});
/** A header as it came over the wire (mailparser folds the List-* headers into an object). */
const header = (m: ReceivedMessage, name: string) => {
  const line = m.raw.split(/\r?\n(?=\S)/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line
    ?.slice(name.length + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
};

async function finishedRun(domainId: string) {
  return eventually(
    async () => {
      const runs = (await engine.api.request('GET', `/v1/domains/${domainId}/placement-runs`)).body;
      return runs[0]?.status === 'COMPLETE' ? runs[0] : undefined;
    },
    60_000,
    'the placement run to finish',
  );
}

describe('seed inboxes', { timeout: 60_000 }, () => {
  it('are added after a real IMAP sign-in, listed without their password, refused twice, and removed', async () => {
    const api = engine.api;
    const added = await api.request('POST', '/v1/seed-inboxes', seedBody('inbox@gseeds.test', 'GOOGLE'));
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      email: 'inbox@gseeds.test',
      provider: 'GOOGLE',
      imapHost: '127.0.0.1',
      spamFolder: 'Junk',
      username: null,
    });
    expect(JSON.stringify(added.body)).not.toContain(PASS);
    expect(Object.keys(added.body).some((k) => k.startsWith('sealed') || k === 'password')).toBe(false);

    const again = await api.request('POST', '/v1/seed-inboxes', seedBody('INBOX@gseeds.test', 'GOOGLE'));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already added/);

    const list = await api.request('GET', '/v1/seed-inboxes');
    expect(list.status).toBe(200);
    expect(list.body.map((s: { email: string }) => s.email)).toEqual(['inbox@gseeds.test']);
    expect(JSON.stringify(list.body)).not.toContain(PASS);

    expect((await api.request('DELETE', `/v1/seed-inboxes/${added.body.id}`)).status).toBe(204);
    expect((await api.request('DELETE', `/v1/seed-inboxes/${added.body.id}`)).status).toBe(404);
    expect((await api.request('GET', '/v1/seed-inboxes')).body).toEqual([]);
  });

  it('refuse a wrong password, an unknown server and a spam folder that is not there, saving nothing', async () => {
    const api = engine.api;
    const wrong = await api.request('POST', '/v1/seed-inboxes', { ...seedBody('spam@gseeds.test', 'GOOGLE'), password: 'not-it' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toBe('The IMAP server refused the sign-in: check the username and password.');
    expect(JSON.stringify(wrong.body)).not.toContain('not-it');

    const unknown = await api.request('POST', '/v1/seed-inboxes', { email: 'someone@unknown-provider.test', password: PASS });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatch(/^imapHost is required/);

    const folder = await api.request('POST', '/v1/seed-inboxes', { ...seedBody('spam@gseeds.test', 'GOOGLE'), spamFolder: 'Bulk Mail' });
    expect(folder.status).toBe(422);
    expect(folder.body.error).toBe('spamFolder: the seed inbox has no folder named Bulk Mail.');

    const bad = await api.request('POST', '/v1/seed-inboxes', { ...seedBody('spam@gseeds.test', 'GMAIL') });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/^provider: must be GOOGLE, MICROSOFT/);
    expect((await api.request('GET', '/v1/seed-inboxes')).body).toEqual([]);
  });
});

describe('a placement sample', { timeout: 120_000 }, () => {
  it('sends one sample to each seed through the send path, reads each seed, and rolls up inbox, spam and missing by provider', async () => {
    const api = engine.api;
    const domain = await domainWithAddress(api, 'place.com');
    // Before any run: the rollup is there, with nothing in it.
    const empty = await api.request('GET', `/v1/domains/${domain.id}/placement-sample`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ domainId: domain.id, sampledAt: null, sampleSize: 0, inbox: 0, spam: 0, missing: 0, byProvider: {} });

    const noMailbox = await api.request('POST', `/v1/domains/${domain.id}/placement-sample`);
    expect(noMailbox.status).toBe(422);
    expect(noMailbox.body.error).toBe('No mailbox at place.com can send: connect one, or resume a paused one, before sampling placement.');

    const a = await smtpMailbox(api, domain, 'a', smtp);
    const b = await smtpMailbox(api, domain, 'b', smtp);
    const noSeeds = await api.request('POST', `/v1/domains/${domain.id}/placement-sample`);
    expect(noSeeds.status).toBe(422);
    expect(noSeeds.body.error).toBe('There are no seed inboxes to sample: add some with POST /v1/seed-inboxes first.');

    for (const [email, provider] of [
      ['inbox@gseeds.test', 'GOOGLE'],
      ['spam@gseeds.test', 'GOOGLE'],
      ['lost@mseeds.test', 'MICROSOFT'],
      ['inbox@mseeds.test', 'MICROSOFT'],
    ]) {
      expect((await api.request('POST', '/v1/seed-inboxes', seedBody(email!, provider!))).status).toBe(201);
    }
    // A launched campaign of the domain: its first email is what the seeds get.
    const c1 = await campaign(api, { mailboxIds: [a.id, b.id] });
    expect((await api.request('POST', `/v1/campaigns/${c1.id}/launch`)).status).toBe(200);

    const started = await api.request('POST', `/v1/domains/${domain.id}/placement-sample`, { campaignId: c1.id });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ domainId: domain.id, status: 'SENDING', campaignId: c1.id, seeds: 4, sent: 0, rollup: null });
    expect(started.body.probes.map((p: { state: string }) => p.state)).toEqual(['WAITING', 'WAITING', 'WAITING', 'WAITING']);
    // The domain's mailboxes take turns.
    expect(started.body.probes.map((p: { mailboxId: string }) => p.mailboxId)).toEqual([a.id, b.id, a.id, b.id]);

    const twice = await api.request('POST', `/v1/domains/${domain.id}/placement-sample`);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatch(/still running/);

    const run = await finishedRun(domain.id);
    expect(run.id).toBe(started.body.id);
    const states = Object.fromEntries(run.probes.map((p: { seedEmail: string; state: string }) => [p.seedEmail, p.state]));
    expect(states).toEqual({
      'inbox@gseeds.test': 'INBOX',
      'spam@gseeds.test': 'SPAM',
      'lost@mseeds.test': 'MISSING',
      'inbox@mseeds.test': 'INBOX',
    });

    const rollup = await api.request('GET', `/v1/domains/${domain.id}/placement-sample`);
    expect(rollup.status).toBe(200);
    expect(rollup.body).toEqual({
      domainId: domain.id,
      sampledAt: started.body.startedAt,
      sampleSize: 4,
      inbox: 2,
      spam: 1,
      missing: 1,
      byProvider: { GOOGLE: { inbox: 1, spam: 1, missing: 0 }, MICROSOFT: { inbox: 1, spam: 0, missing: 1 } },
    });

    // Each sample is an ordinary email of the domain: from its mailbox, with the footer address, an unsubscribe link and the RFC 8058 headers.
    const samples = smtp.messages.filter((m) => m.envelope.to[0]!.includes('seeds.test'));
    expect(samples.map((m) => m.envelope.to[0]).sort()).toEqual(Object.keys(FILED).sort());
    for (const m of samples) {
      expect(['a@place.com', 'b@place.com']).toContain(m.envelope.from);
      expect(m.text).toContain('1 Main St');
      expect(m.text).toMatch(/Unsubscribe: http:\/\/localhost:\d+\/unsubscribe\//);
      // The campaign's copy, filled as for a lead who gave only an address.
      expect(m.subject).toMatch(/^(Quick|Short) question, there$/);
      expect(m.text).toContain('Hi there,\n\nI noticed');
      expect(String(header(m, 'list-unsubscribe-post'))).toBe('List-Unsubscribe=One-Click');
      expect(m.messageId).toMatch(/@place\.com>$/);
    }
    // Two samples from one mailbox are as far apart as any two of its sends (480 s of engine time at least).
    const sentAt = async (seedEmail: string) => {
      const seed = run.probes.find((p: { seedEmail: string }) => p.seedEmail === seedEmail);
      return Number((await getJob(engine.deps, probeJobId(run.id, seed.seedId)))!.sentAtMs);
    };
    expect(Math.abs((await sentAt('lost@mseeds.test')) - (await sentAt('inbox@gseeds.test')))).toBeGreaterThanOrEqual(480_000);

    // Never a campaign send, though it carried the campaign's copy: the campaign counted nothing, no lead
    // was made, and the bounce breaker of the campaign's mailboxes saw nothing.
    const listed = (await api.request('GET', `/v1/campaigns/${c1.id}`)).body;
    expect(listed).toMatchObject({ status: 'ACTIVE', sentCount: 0 });
    expect((await api.request('GET', '/v1/leads')).body).toMatchObject({ leads: [], total: 0 });
    for (const box of [a, b]) expect(await engine.deps.store.get(pairKey(c1.id, box.id))).toBeUndefined();
    // The queue shows what it did: placement sends, finished.
    expect((await api.request('GET', '/v1/queue/status')).body.counts.completed).toBe(4);
  });

  it("follows an unsubscribe from a sample's own link: the seed gets no more samples and is left out of the next rollup", async () => {
    const api = engine.api;
    const domain = (await api.request('GET', '/v1/domains')).body.find((d: { domainName: string }) => d.domainName === 'place.com');
    const sample = smtp.messages.find((m) => m.envelope.to[0] === 'inbox@mseeds.test')!;
    const link = /Unsubscribe: (\S+)/.exec(sample.text!)![1]!;
    expect(String(header(sample, 'list-unsubscribe'))).toContain(link);
    // Opening the link changes nothing; the RFC 8058 one-click POST suppresses the seed's address.
    expect((await checkedFetch(link)).status).toBe(200);
    const click = await checkedFetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(click.status).toBe(200);

    const seedRow = (await api.request('GET', '/v1/seed-inboxes')).body.find((x: { email: string }) => x.email === 'inbox@mseeds.test');
    expect(seedRow.unsubscribedAt).toEqual(expect.any(String));
    // The customer's own address is not put on the permanent suppression list: it can still be a lead.
    const draft = await campaign(api, { name: 'Draft' });
    expect((await api.request('POST', '/v1/leads', { campaignId: draft.id, email: 'inbox@mseeds.test' })).status).toBe(201);

    const before = smtp.messages.length;
    const started = await api.request('POST', `/v1/domains/${domain.id}/placement-sample`, {
      subject: 'Placement {check|test}',
      body: 'Hello {{firstName}}, just checking where this lands.',
    });
    expect(started.status).toBe(202);
    const run = await finishedRun(domain.id);
    const skipped = run.probes.find((p: { seedEmail: string }) => p.seedEmail === 'inbox@mseeds.test');
    expect(skipped).toMatchObject({
      state: 'SKIPPED',
      reason: 'The seed inbox unsubscribed from samples: delete it and add it again to sample it.',
    });
    expect(
      smtp.messages
        .slice(before)
        .map((m) => m.envelope.to[0])
        .sort(),
    ).toEqual(['inbox@gseeds.test', 'lost@mseeds.test', 'spam@gseeds.test']);
    expect(smtp.messages.slice(before).every((m) => m.subject === 'Placement check' || m.subject === 'Placement test')).toBe(true);

    const rollup = (await api.request('GET', `/v1/domains/${domain.id}/placement-sample`)).body;
    expect(rollup).toMatchObject({ sampledAt: started.body.startedAt, sampleSize: 3, inbox: 1, spam: 1, missing: 1 });
    expect(rollup.byProvider).toEqual({ GOOGLE: { inbox: 1, spam: 1, missing: 0 }, MICROSOFT: { inbox: 0, spam: 0, missing: 1 } });

    // Added again, the seed is sampled again.
    expect((await api.request('DELETE', `/v1/seed-inboxes/${seedRow.id}`)).status).toBe(204);
    const readded = await api.request('POST', '/v1/seed-inboxes', seedBody('inbox@mseeds.test', 'MICROSOFT'));
    expect(readded.body.unsubscribedAt).toBeNull();
  });

  it('is refused without a mailing address (guardrail 1), for an unknown domain, and for copy that is not valid', async () => {
    const api = engine.api;
    const bare = (await api.request('POST', '/v1/domains', { domainName: 'other.com' })).body;
    await smtpMailbox(api, bare, 'c', smtp);
    const noAddress = await api.request('POST', `/v1/domains/${bare.id}/placement-sample`);
    expect(noAddress.status).toBe(422);
    expect(noAddress.body.error).toBe(
      'other.com has no mailing address, and every email carries it in its footer: add one before sampling placement.',
    );
    expect((await api.request('GET', `/v1/domains/${bare.id}/placement-runs`)).body).toEqual([]);

    expect((await api.request('GET', '/v1/domains/nope/placement-sample')).status).toBe(404);
    expect((await api.request('POST', '/v1/domains/nope/placement-sample')).status).toBe(404);

    await api.request('PATCH', `/v1/domains/${bare.id}`, { mailingAddress: '2 Side St' });
    const halfCopy = await api.request('POST', `/v1/domains/${bare.id}/placement-sample`, { subject: 'Only a subject' });
    expect(halfCopy.status).toBe(422);
    expect(halfCopy.body.error).toBe('Give a subject and a body together.');
    const spintax = await api.request('POST', `/v1/domains/${bare.id}/placement-sample`, { subject: 'Hi', body: '{Hello|Hi' });
    expect(spintax.status).toBe(422);
    expect(spintax.body.error).toMatch(/^body: /);
    const noCampaign = await api.request('POST', `/v1/domains/${bare.id}/placement-sample`, { campaignId: 'nope' });
    expect(noCampaign.status).toBe(422);
    expect(noCampaign.body.error).toBe('campaignId: there is no campaign nope.');
    expect((await api.request('GET', `/v1/domains/${bare.id}/placement-runs`)).body).toEqual([]);
  });
});

describe('reading the seeds', { timeout: 120_000 }, () => {
  let slow: TestEngine;
  beforeAll(async () => {
    // The wall clock (and so the engine clock) moves only when the test says.
    slow = await startTestEngine();
    await slow.api.login();
  });
  afterAll(async () => {
    await slow?.stop();
  });

  it('counts a sample filed late, calls one missing only after 30 minutes and three looks, and never resends an interrupted one', async () => {
    const api = slow.api;
    const MINUTE = 60_000;
    const domain = await domainWithAddress(api, 'slow.com');
    // One mailbox per seed, so all three go at once; d's server drops the connection after taking the message.
    const e = await smtpMailbox(api, domain, 'e', smtp);
    const f = await smtpMailbox(api, domain, 'f', smtp);
    const d = await smtpMailbox(api, domain, 'd', dropping);
    for (const email of SLOW) expect((await api.request('POST', '/v1/seed-inboxes', seedBody(email, 'OTHER'))).status).toBe(201);
    const started = await api.request('POST', `/v1/domains/${domain.id}/placement-sample`);
    expect(started.status).toBe(202);
    expect(started.body.probes.map((p: { mailboxId: string }) => p.mailboxId)).toEqual([e.id, f.id, d.id]);
    const probe = async (seed: string) => {
      const p = started.body.probes.find((x: { seedEmail: string }) => x.seedEmail === seed);
      return (await getJob(slow.deps, probeJobId(started.body.id, p.seedId)))!;
    };

    await dispatch(slow.deps);
    await eventually(
      async () => (await probe('late@lseeds.test')).state === 'SENT' && (await probe('never@lseeds.test')).state === 'SENT',
      30_000,
      'two samples sent',
    );
    const doubt = await eventually(
      async () => {
        const p = await probe('doubt@lseeds.test');
        return p.state === 'FAILED' ? p : undefined;
      },
      30_000,
      'the interrupted sample to be settled',
    );
    expect(doubt).toMatchObject({ unknownOutcome: true });
    expect(doubt.placement).toBeUndefined();
    // The dropped connection's message did reach the seed after all.
    await dovecot.deliver(
      'doubt@lseeds.test',
      dropping.messages.find((raw) => /^To: doubt@lseeds\.test/m.test(raw))!,
      'INBOX',
    );

    // Four minutes on: too early for a first look.
    slow.wallClock.advance(4 * MINUTE);
    await tick(slow.deps);
    expect((await probe('never@lseeds.test')).reads).toBeUndefined();

    slow.wallClock.advance(2 * MINUTE);
    await tick(slow.deps);
    expect(await probe('never@lseeds.test')).toMatchObject({ reads: 1 });
    expect((await probe('never@lseeds.test')).placement).toBeUndefined();
    expect((await probe('doubt@lseeds.test')).placement).toBe('INBOX');

    // The provider files the late one in spam a few minutes after it was sent.
    const late = smtp.messages.find((m) => m.envelope.to[0] === 'late@lseeds.test')!;
    await dovecot.deliver('late@lseeds.test', late.raw, 'Junk');
    slow.wallClock.advance(5 * MINUTE);
    await tick(slow.deps);
    expect((await probe('late@lseeds.test')).placement).toBe('SPAM');
    expect(await probe('never@lseeds.test')).toMatchObject({ reads: 2 });

    // Three looks, but not yet 30 minutes: not missing yet.
    slow.wallClock.advance(5 * MINUTE);
    await tick(slow.deps);
    expect(await probe('never@lseeds.test')).toMatchObject({ reads: 3 });
    expect((await api.request('GET', `/v1/domains/${domain.id}/placement-runs`)).body[0].status).toBe('READING');

    slow.wallClock.advance(15 * MINUTE);
    await tick(slow.deps);
    expect(await probe('never@lseeds.test')).toMatchObject({
      placement: 'MISSING',
      placementReason: 'Not in the inbox or the spam folder.',
    });
    expect((await api.request('GET', `/v1/domains/${domain.id}/placement-runs`)).body[0]).toMatchObject({ status: 'COMPLETE', sent: 3 });

    expect((await api.request('GET', `/v1/domains/${domain.id}/placement-sample`)).body).toEqual({
      domainId: domain.id,
      sampledAt: started.body.startedAt,
      sampleSize: 3,
      inbox: 1,
      spam: 1,
      missing: 1,
      byProvider: { OTHER: { inbox: 1, spam: 1, missing: 1 } },
    });
    // The interrupted sample went over SMTP once, and was never sent again.
    expect(dropping.messages.filter((raw) => /^To: doubt@lseeds\.test/m.test(raw))).toHaveLength(1);
    expect(smtp.messages.filter((m) => m.envelope.to[0] === 'doubt@lseeds.test')).toHaveLength(0);
  });

  it('settles a sample whose sender died mid-send without sending it again, and leaves it out when it never arrived', async () => {
    const api = slow.api;
    const MINUTE = 60_000;
    const domain = await domainWithAddress(api, 'crash.com');
    await smtpMailbox(api, domain, 'g', smtp);
    // With the queue paused no dispatcher or sender of the engine touches the probes; dead claims are still settled.
    expect((await api.request('POST', '/v1/queue/pause', { paused: true })).status).toBe(200);
    const started = await api.request('POST', `/v1/domains/${domain.id}/placement-sample`);
    expect(started.status).toBe(202);
    const seed = started.body.probes.find((p: { seedEmail: string }) => p.seedEmail === 'never@lseeds.test');
    const id = probeJobId(started.body.id, seed.seedId);

    // A sender claimed it and began SMTP, then died: the claim is left behind.
    const queued = (await getJob(slow.deps, id))!;
    expect(await move(slow.deps, queued, 'QUEUED')).toBe(true);
    const claimedAt = slow.deps.clock.now();
    expect(
      await move(slow.deps, { ...queued, state: 'QUEUED' }, 'CLAIMED', {
        set: { claimId: 'dead', messageId: 'dead-sender@crash.com', claimedAt },
        wallNow: slow.wallClock.now(),
      }),
    ).toBe(true);
    await slow.deps.store.update({ pk: queued.pk, sk: queued.sk }, { set: { smtpStartedAt: slow.wallClock.now() } });

    // Eleven minutes on by the wall, the dispatcher finds the dead claim: never resent, the seed will tell.
    await dispatch({ ...slow.deps, wallClock: { now: () => slow.wallClock.now() + 11 * MINUTE } });
    expect(await getJob(slow.deps, id)).toMatchObject({ state: 'FAILED', unknownOutcome: true, sentAtMs: claimedAt });

    for (const step of [6, 5, 5, 15]) {
      slow.wallClock.advance(step * MINUTE);
      await tick(slow.deps);
    }
    expect(await getJob(slow.deps, id)).toMatchObject({
      placement: 'SKIPPED',
      placementReason: 'The send was interrupted and the sample never arrived.',
    });
    // Nothing of this run ever went to that seed.
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.filter((m) => m.envelope.to[0] === 'never@lseeds.test' && m.messageId!.includes('@crash.com'))).toEqual([]);
  });
});
