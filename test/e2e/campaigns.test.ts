import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignKey } from '@outbound/core/campaign/keys';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, mailbox } from '../helpers/fixtures.ts';

let engine: TestEngine;
let api: Api;
let domain: { id: string; domainName: string };
let box: { id: string; email: string };
beforeAll(async () => {
  engine = await startTestEngine();
  api = engine.api;
  await api.login();
  domain = await domainWithAddress(api, 'camp.com');
  box = await mailbox(api, domain, 'sender');
});
afterAll(() => engine?.stop());

describe('POST /v1/campaigns', () => {
  it('creates a DRAFT with contentQuality, defaults and the fields given', async () => {
    const res = await api.request('POST', '/v1/campaigns', {
      name: 'Q3',
      aiPromptTemplate: 'Write to {{firstName}}',
      subject: 'Hello {{firstName}}',
      template: 'Hi {{firstName}}, {quick|short} question about {{company}}. Would next week work for a call? Thanks.',
      aiProvider: 'OPENAI',
      mailboxIds: [box.id, box.id],
      steps: [
        { waitDays: 3, body: 'Bumping this up.' },
        { waitDays: 5, body: 'Last note.', aiRewrite: true },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Q3',
      status: 'DRAFT',
      aiProvider: 'OPENAI',
      mailboxIds: [box.id],
      bounceRateThreshold: 5,
      pausedForBounceRate: false,
      unsubscribeUrlTemplate: null,
      leadsCount: 0,
      sentCount: 0,
      repliesCount: 0,
    });
    expect(res.body.steps).toHaveLength(2);
    expect(Number.isInteger(res.body.contentQuality)).toBe(true);
    expect(res.body.contentQuality).toBeGreaterThanOrEqual(0);
    expect(res.body.contentQuality).toBeLessThanOrEqual(100);
  });

  it.each([
    [{ aiPromptTemplate: 'x' }, /^name is required/],
    [{ name: 'x' }, /^aiPromptTemplate is required/],
    [{ name: 'x', aiPromptTemplate: 'x', template: 'Hi {there' }, /^template: Spintax/],
    [{ name: 'x', aiPromptTemplate: 'x', subject: 'a } b' }, /^subject: Spintax/],
    [{ name: 'x', aiPromptTemplate: 'x', aiProvider: 'GEMINI' }, /^aiProvider: /],
    [{ name: 'x', aiPromptTemplate: 'x', mailboxIds: ['nope'] }, /^mailboxIds: there is no mailbox nope/],
    [{ name: 'x', aiPromptTemplate: 'x', unsubscribeUrlTemplate: 'not a url' }, /^unsubscribeUrlTemplate: /],
    [
      { name: 'x', aiPromptTemplate: 'x', steps: [{ waitDays: 1 }, { waitDays: 1 }, { waitDays: 1 }, { waitDays: 1 }] },
      /^steps: may hold at most 3/,
    ],
    [{ name: 'x', aiPromptTemplate: 'x', steps: [{ waitDays: 0 }] }, /^steps\.0\.waitDays: must be from 1 to 30/],
    [{ name: 'x', aiPromptTemplate: 'x', steps: [{ waitDays: 31 }] }, /^steps\.0\.waitDays: /],
    [{ name: 'x', aiPromptTemplate: 'x', steps: [{ waitDays: 2, body: '{a|' }] }, /^steps\.0\.body: Spintax/],
  ])('refuses %j with 422 naming the field', async (body, message) => {
    const res = await api.request('POST', '/v1/campaigns', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
  });
});

describe('campaign text measured in bytes', () => {
  it('refuses long non-Latin text that would pass a count of characters but not the table, with 422 naming the field', async () => {
    // 3 bytes a character: every field at its character limit would make a 390 KB item, at the table's 400 KB.
    const kanji = (n: number) => '\u6f22'.repeat(n);
    const res = await api.request('POST', '/v1/campaigns', {
      name: 'Wide',
      aiPromptTemplate: kanji(20_000),
      template: kanji(50_000),
      steps: [1, 2, 3].map((waitDays) => ({ waitDays, body: kanji(20_000) })),
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/bytes of UTF-8/);
    const fine = await api.request('POST', '/v1/campaigns', { name: 'Kanji', aiPromptTemplate: 'x', template: '\u6f22'.repeat(30_000) });
    expect(fine.status).toBe(201);
    const long = await api.request('POST', '/v1/campaigns', {
      name: 'Link',
      aiPromptTemplate: 'x',
      unsubscribeUrlTemplate: `https://x.example/u?e={{email}}&p=${'a'.repeat(2100)}`,
    });
    expect(long.status).toBe(422);
    expect(long.body.error).toMatch(/^unsubscribeUrlTemplate: must be at most 2000 characters/);
  });
});

describe('GET and PATCH /v1/campaigns/{id}', () => {
  it('changes only the fields present, replaces mailboxIds and steps whole, and recomputes contentQuality with the copy', async () => {
    const c = await campaign(api, { mailboxIds: [box.id], steps: [{ waitDays: 2, body: 'one' }] });
    const spammy = await api.request('PATCH', `/v1/campaigns/${c.id}`, {
      template: 'FREE MONEY!!! Click here http://a.com http://b.com http://c.com ACT NOW',
    });
    expect(spammy.status).toBe(200);
    expect(spammy.body.contentQuality).toBeLessThan(c.contentQuality);
    expect(spammy.body).toMatchObject({ name: c.name, subject: c.subject, mailboxIds: [box.id] });

    const renamed = await api.request('PATCH', `/v1/campaigns/${c.id}`, {
      name: 'Renamed',
      mailboxIds: [],
      steps: [{ waitDays: 7, body: 'only' }],
    });
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      mailboxIds: [],
      steps: [{ waitDays: 7, body: 'only' }],
      contentQuality: spammy.body.contentQuality,
    });
    expect((await api.request('GET', `/v1/campaigns/${c.id}`)).body).toMatchObject({ name: 'Renamed', status: 'DRAFT' });

    expect((await api.request('PATCH', `/v1/campaigns/${c.id}`, { aiProvider: null })).body.aiProvider).toBeNull();
    expect((await api.request('PATCH', `/v1/campaigns/${c.id}`, { bounceRateThreshold: 2.5 })).body.bounceRateThreshold).toBe(2.5);
  });

  it.each([
    [{ status: 'ACTIVE' }, /status cannot be changed/],
    [{ colour: 'red' }, /unknown field colour/],
    [{ template: '{a|{b}' }, /^template: Spintax/],
    [{ mailboxIds: ['ghost'] }, /^mailboxIds: there is no mailbox ghost/],
    [{ steps: [{ waitDays: 40, body: 'x' }] }, /^steps\.0\.waitDays/],
    [{ steps: [{ body: 'x' }] }, /^steps\.0\.waitDays is required/],
    [{ steps: [{ waitDays: 2, body: 'x', extra: 1 }] }, /unknown field extra/],
    [{ bounceRateThreshold: 0 }, /^bounceRateThreshold: /],
    [{ pausedForBounceRate: true }, /^pausedForBounceRate: /],
    [
      { schedule: { timezone: 'Mars/Olympus', start: '09:00', end: '17:00' } },
      /^schedule\.timezone: Mars\/Olympus is not an IANA time zone/,
    ],
    [{ schedule: { timezone: '+05:30', start: '09:00', end: '17:00' } }, /^schedule\.timezone: /],
    [{ schedule: { timezone: 'Europe/Berlin', start: '9am', end: '17:00' } }, /^schedule\.start: must be a time HH:MM/],
    [{ schedule: { timezone: 'Europe/Berlin', start: '17:00', end: '09:00' } }, /^schedule\.end: must be later than start/],
    [{ schedule: { timezone: 'Europe/Berlin', start: '09:00', end: '17:00', days: [] } }, /^schedule\.days: must name at least one day/],
    [
      { schedule: { timezone: 'Europe/Berlin', start: '09:00', end: '17:00', days: ['monday'] } },
      /^schedule\.days\.0: must each be one of/,
    ],
    [{ schedule: { timezone: 'Europe/Berlin', end: '17:00' } }, /^schedule\.start is required/],
    [{ schedule: 'weekdays' }, /^schedule: /],
  ])('refuses PATCH %j with 422 and changes nothing', async (body, message) => {
    const c = await campaign(api);
    const res = await api.request('PATCH', `/v1/campaigns/${c.id}`, body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
    const after = (await api.request('GET', `/v1/campaigns/${c.id}`)).body;
    expect({ ...after, updatedAt: c.updatedAt }).toEqual(c);
  });

  it('answers 404 for an unknown campaign on every route that names one', async () => {
    for (const [method, path] of [
      ['GET', '/v1/campaigns/nope'],
      ['PATCH', '/v1/campaigns/nope'],
      ['GET', '/v1/campaigns/nope/launch-check'],
      ['POST', '/v1/campaigns/nope/launch'],
      ['POST', '/v1/campaigns/nope/pause'],
      ['DELETE', '/v1/campaigns/nope'],
    ] as const) {
      const res = await api.request(method, path, method === 'PATCH' ? { name: 'x' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('a campaign schedule', () => {
  it('is null unless given, is stored with its defaults on create and PATCH, and null removes it', async () => {
    const plain = await campaign(api);
    expect(plain.schedule).toBeNull();
    const created = await api.request('POST', '/v1/campaigns', {
      name: 'Hours',
      aiPromptTemplate: 'x',
      schedule: { timezone: 'asia/kolkata', start: '09:30', end: '17:00' },
    });
    expect(created.status).toBe(201);
    const defaults = {
      timezone: 'Asia/Kolkata',
      useLeadTimezone: true,
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start: '09:30',
      end: '17:00',
    };
    expect(created.body.schedule).toEqual(defaults);
    expect((await api.request('GET', `/v1/campaigns/${created.body.id}`)).body.schedule).toEqual(defaults);

    const weekend = { timezone: 'Europe/Berlin', useLeadTimezone: false, days: ['sun', 'sat'], start: '10:00', end: '24:00' };
    const patched = await api.request('PATCH', `/v1/campaigns/${plain.id}`, { schedule: weekend });
    expect(patched.status).toBe(200);
    expect(patched.body.schedule).toEqual(weekend);
    // A PATCH without it leaves it as it is.
    expect((await api.request('PATCH', `/v1/campaigns/${plain.id}`, { name: 'Renamed' })).body.schedule).toMatchObject({
      timezone: 'Europe/Berlin',
    });
    expect((await api.request('GET', '/v1/campaigns')).body.find((r: { id: string }) => r.id === plain.id).schedule).toMatchObject({
      start: '10:00',
    });
    const removed = await api.request('PATCH', `/v1/campaigns/${plain.id}`, { schedule: null });
    expect(removed.body.schedule).toBeNull();
    expect((await api.request('GET', `/v1/campaigns/${plain.id}`)).body.schedule).toBeNull();
  });

  it('refuses a bad schedule on create with 422 naming the field, and stores nothing', async () => {
    const before = (await api.request('GET', '/v1/campaigns')).body.length;
    const res = await api.request('POST', '/v1/campaigns', {
      name: 'Bad hours',
      aiPromptTemplate: 'x',
      schedule: { timezone: 'Europe/Berlin', start: '18:00', end: '18:00' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^schedule\.end: must be later than start \(18:00\)/);
    expect((await api.request('GET', '/v1/campaigns')).body.length).toBe(before);
  });
});

describe('launch check, launch, pause, archive', () => {
  it('reports every problem at once, with their extra keys, and refuses launch with 422 { error, problems, warnings }', async () => {
    const bare = await api.request('POST', '/v1/domains', { domainName: 'noaddress.com' });
    const b1 = await mailbox(api, bare.body, 'one', { senderName: null });
    const b2 = await mailbox(api, bare.body, 'two');
    const c = await campaign(api, {
      subject: null,
      template: '',
      mailboxIds: [b1.id, b2.id, box.id],
      steps: [{ waitDays: 2, body: 'ok' }, { waitDays: 3 }, { waitDays: 4, body: '  ' }],
    });
    // The bounce breaker (sending engine) sets this flag; set it as it would.
    await engine.deps.store.update(campaignKey(c.id), { set: { pausedForBounceRate: true } });

    const check = await api.request('GET', `/v1/campaigns/${c.id}/launch-check`);
    expect(check.status).toBe(200);
    expect(check.body.canLaunch).toBe(false);
    const codes = check.body.problems.map((p: { code: string }) => p.code);
    expect(codes.sort()).toEqual(['BOUNCE_PAUSED', 'DOMAIN_NO_ADDRESS', 'EMAIL_EMPTY', 'STEP_EMPTY', 'STEP_EMPTY']);
    expect(check.body.problems.find((p: { code: string }) => p.code === 'DOMAIN_NO_ADDRESS')).toMatchObject({
      domainId: bare.body.id,
      domainName: 'noaddress.com',
      mailboxCount: 2,
    });
    expect(
      check.body.problems.filter((p: { code: string }) => p.code === 'STEP_EMPTY').map((p: { position: number }) => p.position),
    ).toEqual([2, 3]);
    expect(check.body.passed.sort()).toEqual(['SENDERS', 'UNSUBSCRIBE']);
    for (const p of check.body.problems) expect(typeof p.message).toBe('string');
    expect(check.body.warnings.map((w: { code: string }) => w.code)).toEqual(expect.arrayContaining(['SENDER_NAME_MISSING', 'NO_LEADS']));

    const launch = await api.request('POST', `/v1/campaigns/${c.id}/launch`);
    expect(launch.status).toBe(422);
    expect(Object.keys(launch.body).sort()).toEqual(['error', 'problems', 'warnings']);
    expect(launch.body.problems).toEqual(check.body.problems);
    expect((await api.request('GET', `/v1/campaigns/${c.id}`)).body.status).toBe('DRAFT');
  });

  it('says NO_SENDERS when no mailbox is picked or every picked one is paused', async () => {
    const none = await campaign(api);
    expect((await api.request('GET', `/v1/campaigns/${none.id}/launch-check`)).body.problems.map((p: { code: string }) => p.code)).toEqual([
      'NO_SENDERS',
    ]);
    const paused = await mailbox(api, domain, 'paused');
    await api.request('PATCH', `/v1/mailboxes/${paused.id}`, { status: 'PAUSED' });
    const c = await campaign(api, { mailboxIds: [paused.id] });
    expect((await api.request('GET', `/v1/campaigns/${c.id}/launch-check`)).body.problems.map((p: { code: string }) => p.code)).toEqual([
      'NO_SENDERS',
    ]);
  });

  it('warns ALL_WARMING and FIELD_UNKNOWN without blocking, launches to ACTIVE with the warnings, pauses and archives', async () => {
    const warm = await mailbox(api, domain, 'warm');
    await api.request('PATCH', `/v1/mailboxes/${warm.id}`, { status: 'WARMING' });
    const c = await campaign(api, { mailboxIds: [warm.id], template: 'Hi {{firstName}}, about {{industry}}: shall we talk next week?' });
    const res = await api.request('POST', `/v1/campaigns/${c.id}/launch`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ACTIVE');
    const codes = res.body.warnings.map((w: { code: string }) => w.code);
    expect(codes).toEqual(expect.arrayContaining(['ALL_WARMING', 'NO_LEADS', 'FIELD_UNKNOWN']));
    expect(res.body.warnings.find((w: { code: string }) => w.code === 'FIELD_UNKNOWN').field).toBe('industry');

    const paused = await api.request('POST', `/v1/campaigns/${c.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('PAUSED');
    const archived = await api.request('DELETE', `/v1/campaigns/${c.id}`);
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('ARCHIVED');
    expect((await api.request('GET', `/v1/campaigns/${c.id}`)).body.status).toBe('ARCHIVED');
  });

  it('says NO_UNSUBSCRIBE only when the campaign has no template and the installation has no page', async () => {
    const bare = await startTestEngine({ publicBaseUrl: '' });
    try {
      await bare.api.login();
      const d = await domainWithAddress(bare.api, 'nounsub.com');
      const m = await mailbox(bare.api, d, 'x');
      const c = await campaign(bare.api, { mailboxIds: [m.id] });
      expect(
        (await bare.api.request('GET', `/v1/campaigns/${c.id}/launch-check`)).body.problems.map((p: { code: string }) => p.code),
      ).toEqual(['NO_UNSUBSCRIBE']);
      await bare.api.request('PATCH', `/v1/campaigns/${c.id}`, { unsubscribeUrlTemplate: 'https://nounsub.com/unsub?e={{email}}' });
      expect((await bare.api.request('GET', `/v1/campaigns/${c.id}/launch-check`)).body.canLaunch).toBe(true);
    } finally {
      await bare.stop();
    }
  });
});

describe('GET /v1/campaigns', () => {
  it('lists rows with senders, launch, progress and counters', async () => {
    const c = await campaign(api, { name: 'Listed', mailboxIds: [box.id] });
    const list = await api.request('GET', '/v1/campaigns');
    expect(list.status).toBe(200);
    const row = list.body.find((r: { id: string }) => r.id === c.id);
    expect(row).toMatchObject({
      mailboxIds: [box.id],
      steps: [],
      senders: [{ mailboxId: box.id, email: box.email, status: 'ACTIVE', domainId: domain.id, hasMailingAddress: true }],
      launch: { canLaunch: true, problems: [] },
      leadsCount: 0,
      sentCount: 0,
      repliesCount: 0,
      domainsCount: 1,
      lastActivityAt: null,
    });
    expect(row.progress).toMatchObject({ total: 0, percentDone: 0 });
  });
});
