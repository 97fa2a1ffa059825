import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { leadKey, pinnedLeads } from '@outbound/core/lead/keys';
import { localDynamoClient } from '@outbound/local/dynamo-local';
import { table } from '@outbound/functions/manifest';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, mailbox } from '../helpers/fixtures.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

type Lead = {
  id: string;
  campaignId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  customFields: Record<string, unknown>;
  status: string;
  createdAt: string;
};

const tableName = `t-leads-${randomUUID()}`;
let engine: TestEngine;
let api: Api;
/** No token: what a form on a web site or a Zapier hook has. */
let anon: Api;
let dynamo: DynamoDBClient;
let domain: { id: string; domainName: string };

beforeAll(async () => {
  engine = await startTestEngine({ tableName });
  api = engine.api;
  anon = new Api(engine.url);
  await api.login();
  dynamo = localDynamoClient(inject('dynamoEndpoint'), inject('dynamoCredentials'));
  domain = await domainWithAddress(api, 'leads.com');
});
afterAll(async () => {
  dynamo?.destroy();
  await engine?.stop();
});

// ---------------------------------------------------------------- helpers

async function addLead(body: Record<string, unknown>): Promise<Lead> {
  const res = await api.request('POST', '/v1/leads', body);
  if (res.status !== 201) throw new Error(`lead: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function leadsCount(campaignId: string): Promise<number> {
  const res = await api.request('GET', `/v1/campaigns/${campaignId}`);
  expect(res.status).toBe(200);
  return res.body.leadsCount;
}

async function totalLeads(campaignId?: string): Promise<number> {
  const res = await api.request('GET', `/v1/leads${campaignId ? `?campaignId=${campaignId}` : ''}`);
  expect(res.status).toBe(200);
  return res.body.total;
}

/** Every lead of the filter, walking the pages to the end. */
async function allLeads(campaignId?: string, limit = 1000): Promise<{ leads: Lead[]; total: number; pages: number }> {
  const leads: Lead[] = [];
  let cursor: string | null = null;
  let total: number;
  let pages = 0;
  do {
    const qs = new URLSearchParams({ limit: String(limit) });
    if (campaignId) qs.set('campaignId', campaignId);
    if (cursor) qs.set('cursor', cursor);
    const res = await api.request('GET', `/v1/leads?${qs}`);
    expect(res.status).toBe(200);
    expect(res.body.leads.length).toBeLessThanOrEqual(limit);
    leads.push(...res.body.leads);
    total = res.body.total;
    cursor = res.body.nextCursor;
    expect(pages++).toBeLessThan(10_000);
  } while (cursor);
  return { leads, total, pages };
}

const byEmail = (leads: Lead[], email: string) => leads.filter((l) => l.email === email);

/** POST /v1/leads/import as a browser or curl -F would send it. */
/** `token` null sends no Authorization header at all. */
async function upload(parts: { campaignId?: string; csv?: string; filename?: string }, token: string | null | undefined = api.token) {
  const form = new FormData();
  if (parts.campaignId !== undefined) form.append('campaignId', parts.campaignId);
  if (parts.csv !== undefined) form.append('file', new Blob([parts.csv], { type: 'text/csv' }), parts.filename ?? 'leads.csv');
  const res = await checkedFetch(`${engine.url}/v1/leads/import`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep the text */
  }
  return { status: res.status, body };
}

/** Every item of the engine's table, raw, as DynamoDB holds it. */
async function scanTable(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await dynamo.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []).map((i) => unmarshall(i)));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

async function launchWarnings(campaignId: string) {
  const res = await api.request('GET', `/v1/campaigns/${campaignId}/launch-check`);
  expect(res.status).toBe(200);
  return res.body.warnings as { code: string; field?: string; blankCount?: number; message: string }[];
}

// ---------------------------------------------------------------- POST /v1/leads

describe('POST /v1/leads', () => {
  it('creates a lead: 201 with the row fields, the address trimmed and lower-cased, status NEW', async () => {
    const c = await campaign(api);
    const res = await api.request('POST', '/v1/leads', {
      campaignId: c.id,
      email: '  Ada.Lovelace@Example.COM ',
      firstName: 'Ada',
      lastName: 'Lovelace',
      company: 'Analytical Engines',
      customFields: { role: 'CTO', seats: 12, vip: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      campaignId: c.id,
      email: 'ada.lovelace@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      company: 'Analytical Engines',
      customFields: { role: 'CTO', seats: 12, vip: true },
      status: 'NEW',
    });
    expect(typeof res.body.id).toBe('string');
    expect(res.body.id.length).toBeGreaterThan(0);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    // No storage keys leak into the row.
    expect(Object.keys(res.body).filter((k) => /^(pk|sk|gsi\d(pk|sk))$/.test(k))).toEqual([]);

    const listed = await api.request('GET', `/v1/leads?campaignId=${c.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, nextCursor: null });
    expect(listed.body.leads).toEqual([res.body]);
    const stored = await engine.deps.store.get(leadKey(res.body.id));
    expect(stored).toMatchObject({ email: 'ada.lovelace@example.com', campaignId: c.id, status: 'NEW', firstName: 'Ada' });
  });

  it('answers 409 for the same address in the same campaign in another case, and stores nothing more', async () => {
    const c = await campaign(api);
    const first = await addLead({ campaignId: c.id, email: 'dup@example.com', firstName: 'One' });
    const again = await api.request('POST', '/v1/leads', { campaignId: c.id, email: 'DUP@Example.com', firstName: 'Two' });
    expect(again.status).toBe(409);
    expect(typeof again.body.error).toBe('string');
    expect(again.body.error).toMatch(/already a lead/);
    expect(await leadsCount(c.id)).toBe(1);
    const { leads, total } = await allLeads(c.id);
    expect(total).toBe(1);
    expect(leads).toEqual([first]);
  });

  it('accepts the same address in another campaign with 201', async () => {
    const c1 = await campaign(api);
    const c2 = await campaign(api);
    const a = await addLead({ campaignId: c1.id, email: 'twice@example.com' });
    const res = await api.request('POST', '/v1/leads', { campaignId: c2.id, email: 'Twice@Example.com' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ campaignId: c2.id, email: 'twice@example.com', status: 'NEW' });
    expect(res.body.id).not.toBe(a.id);
    expect(await leadsCount(c1.id)).toBe(1);
    expect(await leadsCount(c2.id)).toBe(1);
  });

  it.each([
    [{ campaignId: 'no-such-campaign', email: 'v1@example.com' }, /^campaignId: there is no campaign/],
    [{ email: 'v2@example.com' }, /^campaignId is required/],
    [{ campaignId: '<campaign>' }, /^email is required/],
    [{ campaignId: '<campaign>', email: 'not-an-email' }, /^email: /],
    [{ campaignId: '<campaign>', email: 'v3@example.com', phone: '555' }, /unknown field phone/],
    [{ campaignId: '<campaign>', email: '-v4@example.com' }, /^email: must not start with/],
    [{ campaignId: '<campaign>', email: '+v5@example.com' }, /^email: must not start with/],
    [{ campaignId: '<campaign>', email: 'v6@example.com', firstName: 42 }, /^firstName: /],
    [{ campaignId: '<campaign>', email: 'v7@example.com', customFields: 'x' }, /^customFields: /],
  ])('refuses %j with 422 naming the field, and stores nothing', async (body, message) => {
    const c = await campaign(api);
    const before = await totalLeads();
    const res = await api.request('POST', '/v1/leads', JSON.parse(JSON.stringify(body).replace('<campaign>', c.id)));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
    expect(await leadsCount(c.id)).toBe(0);
    expect(await totalLeads()).toBe(before);
  });

  it('neutralizes formula cells (guardrail 6) with a single quote, keeps numbers and booleans as they are', async () => {
    const c = await campaign(api);
    const res = await api.request('POST', '/v1/leads', {
      campaignId: c.id,
      email: 'formula@example.com',
      firstName: '=HYPERLINK("http://evil.test","click")',
      lastName: '\uFF1DSUM(1)',
      company: '+cmd',
      customFields: { note: '@SUM(1)', n: ' -2', hidden: '\t=1+1', safe: "'=already", plain: 'hello', score: -5, vip: true },
    });
    expect(res.status).toBe(201);
    const expected = {
      firstName: `'=HYPERLINK("http://evil.test","click")`,
      lastName: "'\uFF1DSUM(1)",
      company: "'+cmd",
      customFields: { note: "'@SUM(1)", n: "' -2", hidden: "'\t=1+1", safe: "'=already", plain: 'hello', score: -5, vip: true },
    };
    expect(res.body).toMatchObject(expected);
    expect((await engine.deps.store.get(leadKey(res.body.id))) ?? {}).toMatchObject(expected);
    const listed = byEmail((await allLeads(c.id)).leads, 'formula@example.com');
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject(expected);
  });
});

// ---------------------------------------------------------------- counts and GET /v1/leads

describe('GET /v1/leads and the campaign leadsCount', () => {
  it('leadsCount and total follow creates and deletes', async () => {
    const c = await campaign(api);
    const before = await totalLeads();
    const made = [];
    for (const n of [1, 2, 3]) made.push(await addLead({ campaignId: c.id, email: `count${n}@example.com` }));
    expect(await leadsCount(c.id)).toBe(3);
    expect(await totalLeads(c.id)).toBe(3);
    expect(await totalLeads()).toBe(before + 3);
    const row = (await api.request('GET', '/v1/campaigns')).body.find((r: { id: string }) => r.id === c.id);
    expect(row.leadsCount).toBe(3);

    expect((await api.request('DELETE', `/v1/leads/${made[1]!.id}`)).status).toBe(204);
    expect(await leadsCount(c.id)).toBe(2);
    expect(await totalLeads(c.id)).toBe(2);
    expect(await totalLeads()).toBe(before + 2);
    expect((await allLeads(c.id)).leads.map((l) => l.id).sort()).toEqual([made[0]!.id, made[2]!.id].sort());
  });

  it('lists with and without campaignId, and pages with limit and cursor to a null nextCursor', async () => {
    const a = await campaign(api);
    const b = await campaign(api);
    const aIds: string[] = [];
    for (let n = 0; n < 5; n++) aIds.push((await addLead({ campaignId: a.id, email: `page-a${n}@example.com` })).id);
    const bIds: string[] = [];
    for (let n = 0; n < 2; n++) bIds.push((await addLead({ campaignId: b.id, email: `page-b${n}@example.com` })).id);

    // 5 leads, 2 a page: 2, 2, 1, the last with nextCursor null.
    const sizes: number[] = [];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: any } = await api.request(
        'GET',
        `/v1/leads?campaignId=${a.id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(5);
      for (const l of res.body.leads) expect(l.campaignId).toBe(a.id);
      sizes.push(res.body.leads.length);
      seen.push(...res.body.leads.map((l: Lead) => l.id));
      cursor = res.body.nextCursor;
      if (res.body.leads.length < 2) expect(cursor).toBeNull();
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen.sort()).toEqual([...aIds].sort());

    const onlyB = await api.request('GET', `/v1/leads?campaignId=${b.id}`);
    expect(onlyB.body.nextCursor).toBeNull();
    expect(onlyB.body.total).toBe(2);
    expect(onlyB.body.leads.map((l: Lead) => l.id).sort()).toEqual([...bIds].sort());

    // Without campaignId: every campaign's leads, and total is the full count.
    const everything = await allLeads(undefined, 3);
    const ids = everything.leads.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...aIds, ...bIds]));
    expect(everything.total).toBe(ids.length);
    const firstPage = await api.request('GET', '/v1/leads');
    expect(firstPage.body.total).toBe(ids.length);
    expect(firstPage.body.leads.length).toBe(Math.min(100, ids.length));

    // An unknown campaign has no leads.
    expect((await api.request('GET', '/v1/leads?campaignId=nope')).body).toEqual({ leads: [], total: 0, nextCursor: null });
  });

  it.each(['limit=0', 'limit=1001', 'limit=abc', 'limit=-1'])('refuses %s with 422 naming limit', async (qs) => {
    const res = await api.request('GET', `/v1/leads?${qs}`);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^limit: /);
  });

  it('accepts the limits 1 and 1000, and refuses a cursor it never gave out with 422', async () => {
    expect((await api.request('GET', '/v1/leads?limit=1')).body.leads).toHaveLength(1);
    expect((await api.request('GET', '/v1/leads?limit=1000')).status).toBe(200);
    const bad = await api.request('GET', '/v1/leads?cursor=not-a-cursor');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/cursor/);
  });
});

// ---------------------------------------------------------------- webhook

describe("a lead's zone on its row", () => {
  const schedule = { timezone: 'America/Chicago', start: '09:00', end: '17:00' };
  const zoneOf = (l: Record<string, unknown>) => ({ timezone: l.timezone, timezoneSource: l.timezoneSource });

  it("shows timezone and timezoneSource when the campaign has a schedule (own field, country, region, else the campaign's), and neither without one", async () => {
    const c = await campaign(api, { schedule });
    const own = await api.request('POST', '/v1/leads', {
      campaignId: c.id,
      email: 'own@tz.example',
      customFields: { timezone: 'Asia/Kathmandu' },
    });
    expect(own.status).toBe(201);
    expect(zoneOf(own.body)).toEqual({ timezone: 'Asia/Kathmandu', timezoneSource: 'lead' });
    await addLead({ campaignId: c.id, email: 'de@tz.example', customFields: { country: 'Germany' } });
    await addLead({ campaignId: c.id, email: 'nsw@tz.example', customFields: { country: 'AU', region: 'NSW' } });
    await addLead({ campaignId: c.id, email: 'us@tz.example', customFields: { country: 'US' } });
    await addLead({ campaignId: c.id, email: 'bad@tz.example', customFields: { timezone: 'Nowhere/Land' } });
    const expected = {
      'own@tz.example': { timezone: 'Asia/Kathmandu', timezoneSource: 'lead' },
      'de@tz.example': { timezone: 'Europe/Berlin', timezoneSource: 'country' },
      'nsw@tz.example': { timezone: 'Australia/Sydney', timezoneSource: 'country' },
      'us@tz.example': { timezone: 'America/Chicago', timezoneSource: 'campaign' },
      'bad@tz.example': { timezone: 'America/Chicago', timezoneSource: 'campaign' },
    };
    const byCampaign = (await api.request('GET', `/v1/leads?campaignId=${c.id}`)).body.leads as Record<string, unknown>[];
    expect(Object.fromEntries(byCampaign.map((l) => [l.email, zoneOf(l)]))).toEqual(expected);
    // Without campaignId, each row is read with its own campaign's schedule.
    const plain = await campaign(api);
    const anyHour = await addLead({ campaignId: plain.id, email: 'any@tz.example', customFields: { timezone: 'Europe/Paris' } });
    expect(anyHour).not.toHaveProperty('timezone');
    const everyone = (await api.request('GET', '/v1/leads?limit=1000')).body.leads as Record<string, unknown>[];
    expect(everyone.find((l) => l.email === 'nsw@tz.example')).toMatchObject(expected['nsw@tz.example']);
    const row = everyone.find((l) => l.id === anyHour.id)!;
    expect(row).not.toHaveProperty('timezone');
    expect(row).not.toHaveProperty('timezoneSource');

    // Not the lead's zone when the campaign says so; gone with the schedule.
    await api.request('PATCH', `/v1/campaigns/${c.id}`, { schedule: { ...schedule, useLeadTimezone: false } });
    const suppressed = await api.request('POST', `/v1/leads/${own.body.id}/suppress`);
    expect(zoneOf(suppressed.body)).toEqual({ timezone: 'America/Chicago', timezoneSource: 'campaign' });
    await api.request('PATCH', `/v1/campaigns/${c.id}`, { schedule: null });
    for (const l of (await api.request('GET', `/v1/leads?campaignId=${c.id}`)).body.leads) expect(l).not.toHaveProperty('timezone');
  });
});

describe('GET /v1/leads/{id}/next-send', () => {
  const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

  it('answers when the next step may start and what holds it, the same on every read while nothing changes', async () => {
    const now = engine.deps.clock.now();
    const today = new Date(now).getUTCDay();
    // Every day but today, all day, in a zone at UTC all year: closed now, open from the next midnight UTC.
    const schedule = {
      timezone: 'Africa/Abidjan',
      useLeadTimezone: false,
      days: DAYS.filter((_, i) => i !== today),
      start: '00:00',
      end: '24:00',
    };
    const box = await mailbox(api, domain, `next${randomUUID().slice(0, 8)}`);
    const c = await campaign(api, { mailboxIds: [box.id], schedule });
    const lead = await addLead({ campaignId: c.id, email: 'next@send.example', customFields: { timezone: 'Asia/Tokyo' } });

    const draft = await api.request('GET', `/v1/leads/${lead.id}/next-send`);
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({
      leadId: lead.id,
      campaignId: c.id,
      step: 0,
      earliestAt: null,
      timezone: 'Africa/Abidjan',
      timezoneSource: 'campaign',
    });
    expect(draft.body.blockedBy.map((b: { rule: string }) => b.rule).sort()).toEqual(['paused', 'window']);

    expect((await api.request('POST', `/v1/campaigns/${c.id}/launch`)).status).toBe(200);
    const first = await api.request('GET', `/v1/leads/${lead.id}/next-send`);
    const midnight = Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000;
    expect(first.body).toMatchObject({ step: 0, earliestAt: new Date(midnight).toISOString() });
    expect(first.body.blockedBy).toEqual([expect.objectContaining({ rule: 'window', until: new Date(midnight).toISOString() })]);
    expect(first.body.blockedBy[0].detail).toMatch(/00:00 to 24:00 in Africa\/Abidjan/);
    expect((await api.request('GET', `/v1/leads/${lead.id}/next-send`)).body).toEqual(first.body);

    // Without a schedule: no zone, no window.
    await api.request('PATCH', `/v1/campaigns/${c.id}`, { schedule: null });
    const anyHour = (await api.request('GET', `/v1/leads/${lead.id}/next-send`)).body;
    expect(anyHour).toMatchObject({ step: 0, timezone: null, timezoneSource: null });
    expect(anyHour.blockedBy.map((b: { rule: string }) => b.rule)).not.toContain('window');
    expect(anyHour.earliestAt).not.toBeNull();

    // A suppressed address never gets its next step.
    await api.request('POST', `/v1/leads/${lead.id}/suppress`);
    const stopped = (await api.request('GET', `/v1/leads/${lead.id}/next-send`)).body;
    expect(stopped).toMatchObject({ step: null, earliestAt: null });
    expect(stopped.blockedBy.map((b: { rule: string }) => b.rule)).toContain('suppressed');
  });

  it('answers 404 for an unknown lead', async () => {
    const res = await api.request('GET', '/v1/leads/no-such-lead/next-send');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/no lead/);
  });
});

describe('POST /v1/leads/webhook (no token)', () => {
  it('accepts a new lead with 200 { accepted: true } and stores it, neutralized', async () => {
    const c = await campaign(api);
    const res = await anon.request('POST', '/v1/leads/webhook', {
      campaignId: c.id,
      email: 'Hook@Example.com',
      firstName: '@Hook',
      company: 'Hooks Inc',
      customFields: { source: "=cmd|' /C calc'!A0", page: '/pricing', visits: 3 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: true });
    const rows = byEmail((await allLeads(c.id)).leads, 'hook@example.com');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      campaignId: c.id,
      status: 'NEW',
      firstName: "'@Hook",
      company: 'Hooks Inc',
      customFields: { source: "'=cmd|' /C calc'!A0", page: '/pricing', visits: 3 },
    });
    expect(await leadsCount(c.id)).toBe(1);
  });

  it('answers 200 for a duplicate and for a suppressed address, and stores nothing new', async () => {
    const c = await campaign(api);
    const other = await campaign(api);
    await anon.request('POST', '/v1/leads/webhook', { campaignId: c.id, email: 'again@hook.example', firstName: 'First' });
    const blocked = await addLead({ campaignId: other.id, email: 'blocked@hook.example' });
    expect((await api.request('POST', `/v1/leads/${blocked.id}/suppress`)).status).toBe(200);
    const before = await totalLeads();

    const dup = await anon.request('POST', '/v1/leads/webhook', { campaignId: c.id, email: 'AGAIN@hook.example', firstName: 'Second' });
    expect(dup.status).toBe(200);
    expect(dup.body).toEqual({ accepted: true });
    const suppressed = await anon.request('POST', '/v1/leads/webhook', { campaignId: c.id, email: 'Blocked@Hook.example' });
    expect(suppressed.status).toBe(200);
    expect(suppressed.body).toEqual({ accepted: true });

    expect(await leadsCount(c.id)).toBe(1);
    expect(await totalLeads()).toBe(before);
    const { leads } = await allLeads(c.id);
    expect(leads.map((l) => [l.email, l.firstName])).toEqual([['again@hook.example', 'First']]);
  });

  it('takes application/json only: a text/plain or form post (which a web page could make without a preflight) answers 415 and stores nothing', async () => {
    const c = await campaign(api);
    const before = await totalLeads();
    const body = JSON.stringify({ campaignId: c.id, email: 'csrf@hook.example' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const res = await anon.request('POST', '/v1/leads/webhook', body, type ? { 'content-type': type } : {});
      expect(res.status, type).toBe(415);
      expect(res.body.error).toMatch(/Content-Type: application\/json/);
    }
    const ok = await anon.request('POST', '/v1/leads/webhook', body, { 'content-type': 'application/json; charset=utf-8' });
    expect(ok.status).toBe(200);
    expect(await totalLeads()).toBe(before + 1);
  });

  it('refuses an unknown campaignId and an invalid body with 422, malformed JSON with 400, and stores nothing', async () => {
    const c = await campaign(api);
    const before = await totalLeads();
    const cases: [unknown, RegExp][] = [
      [{ campaignId: 'no-such-campaign', email: 'x@hook.example' }, /^campaignId: there is no campaign/],
      [{ campaignId: c.id, email: 'not-an-email' }, /^email: /],
      [{ campaignId: c.id }, /^email is required/],
      [{ campaignId: c.id, email: 'y@hook.example', extra: 1 }, /unknown field extra/],
      [{ campaignId: c.id, email: '-z@hook.example' }, /^email: must not start with/],
      [{ email: 'w@hook.example' }, /^campaignId is required/],
    ];
    for (const [body, message] of cases) {
      const res = await anon.request('POST', '/v1/leads/webhook', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatch(message);
    }
    const malformed = await anon.request('POST', '/v1/leads/webhook', '{"campaignId": "' + c.id + '", "email": ', {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(typeof malformed.body.error).toBe('string');
    expect(await leadsCount(c.id)).toBe(0);
    expect(await totalLeads()).toBe(before);
  });
});

// ---------------------------------------------------------------- CSV import

describe('POST /v1/leads/import', () => {
  it('imports a CSV with header synonyms and reports every outcome with physical line numbers', async () => {
    const c = await campaign(api);
    const elsewhere = await campaign(api);
    const existing = await addLead({ campaignId: c.id, email: 'existing@imp.example', firstName: 'Existing' });
    const blocked = await addLead({ campaignId: elsewhere.id, email: 'blocked@imp.example' });
    expect((await api.request('POST', `/v1/leads/${blocked.id}/suppress`)).status).toBe(200);

    const lines = [
      /* 1 */ 'E-mail,First Name,company name,Job Title',
      /* 2 */ 'alice@imp.example,Alice,Acme,CTO',
      /* 3 */ 'BOB@Imp.Example,Bob,"=HYPERLINK(""http://evil.test"",""click"")",+CEO',
      /* 4 */ 'ALICE@imp.example,Alicia,Acme Two,',
      /* 5 */ 'existing@imp.example,Eve,,',
      /* 6 */ 'blocked@imp.example,Mallory,,',
      /* 7 */ '',
      /* 8 */ 'carol@imp.example,Carol,,"Head of',
      /* 9 */ 'Sales"',
      /* 10 */ 'not-an-email,Nobody,,',
      /* 11 */ 'dan@imp.example,,Dan Co',
    ];
    const res = await upload({ campaignId: c.id, csv: lines.join('\r\n') + '\r\n' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', campaignId: c.id, importId: expect.any(String), rowsRead: 8 });
    expect(res.body).toMatchObject({
      received: 8,
      imported: 4,
      duplicates: 2,
      suppressed: 1,
      invalid: 1,
      errors: [{ row: 10, error: expect.stringMatching(/^email: /) }],
    });

    expect(await leadsCount(c.id)).toBe(5);
    const { leads, total } = await allLeads(c.id);
    expect(total).toBe(5);
    expect(leads.map((l) => l.email).sort()).toEqual(
      ['alice@imp.example', 'bob@imp.example', 'carol@imp.example', 'dan@imp.example', 'existing@imp.example'].sort(),
    );
    const one = (email: string) => {
      const rows = byEmail(leads, email);
      expect(rows, email).toHaveLength(1);
      return rows[0]!;
    };
    // The first row of a duplicate pair wins; the other is not stored.
    expect(one('alice@imp.example')).toMatchObject({
      firstName: 'Alice',
      company: 'Acme',
      customFields: { 'Job Title': 'CTO' },
      status: 'NEW',
    });
    expect(one('bob@imp.example')).toMatchObject({
      firstName: 'Bob',
      company: `'=HYPERLINK("http://evil.test","click")`,
      customFields: { 'Job Title': "'+CEO" },
    });
    expect(one('carol@imp.example')).toMatchObject({
      firstName: 'Carol',
      company: null,
      customFields: { 'Job Title': 'Head of\r\nSales' },
    });
    expect(one('dan@imp.example')).toMatchObject({ firstName: null, lastName: null, company: 'Dan Co', customFields: {} });
    // The lead that was there already is untouched.
    expect(one('existing@imp.example')).toEqual(existing);
    // The suppressed address got no row here.
    expect(byEmail(leads, 'blocked@imp.example')).toEqual([]);
    expect(byEmail(leads, 'not-an-email')).toEqual([]);
  });

  it('refuses a file of more than 50,000 data rows with 413 and stores nothing', async () => {
    const c = await campaign(api);
    await addLead({ campaignId: c.id, email: 'before-big@example.com' });
    const before = await totalLeads();
    const rows = ['email'];
    for (let i = 0; i < 50_001; i++) rows.push(`r${i}@big.example`);
    const res = await upload({ campaignId: c.id, csv: rows.join('\n') + '\n', filename: 'big.csv' });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatch(/more than 50,000 rows/);
    expect(await leadsCount(c.id)).toBe(1);
    expect(await totalLeads(c.id)).toBe(1);
    expect(await totalLeads()).toBe(before);
    expect((await allLeads(c.id)).leads.map((l) => l.email)).toEqual(['before-big@example.com']);
  });

  it('refuses a body that is not multipart/form-data with 422', async () => {
    const c = await campaign(api);
    const asJson = await api.request('POST', '/v1/leads/import', { campaignId: c.id, file: 'email\nj@imp.example\n' });
    expect(asJson.status).toBe(422);
    expect(asJson.body.error).toMatch(/multipart\/form-data/);
    const asCsv = await api.request('POST', '/v1/leads/import', 'email\nk@imp.example\n', { 'content-type': 'text/csv' });
    expect(asCsv.status).toBe(422);
    expect(asCsv.body.error).toMatch(/multipart\/form-data/);
    expect(await leadsCount(c.id)).toBe(0);
  });

  it('answers 401 without a token and stores nothing', async () => {
    const c = await campaign(api);
    const res = await upload({ campaignId: c.id, csv: 'email\nnotoken@imp.example\n' }, null);
    expect(res.status).toBe(401);
    expect(typeof res.body.error).toBe('string');
    expect(await leadsCount(c.id)).toBe(0);
  });

  it('refuses a missing campaignId, an unknown one, or a missing file with 422', async () => {
    const c = await campaign(api);
    const before = await totalLeads();
    const noCampaign = await upload({ csv: 'email\nm1@imp.example\n' });
    expect(noCampaign.status).toBe(422);
    expect(noCampaign.body.error).toMatch(/^campaignId/);
    const unknown = await upload({ campaignId: 'no-such-campaign', csv: 'email\nm2@imp.example\n' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatch(/^campaignId: there is no campaign/);
    const noFile = await upload({ campaignId: c.id });
    expect(noFile.status).toBe(422);
    expect(noFile.body.error).toMatch(/^file/);
    expect(await leadsCount(c.id)).toBe(0);
    expect(await totalLeads()).toBe(before);
  });
});

// ---------------------------------------------------------------- suppress

describe('POST /v1/leads/{id}/suppress', () => {
  it('answers the row SUPPRESSED, suppresses the address in every campaign, and refuses it afterwards with 409', async () => {
    const a = await campaign(api);
    const b = await campaign(api);
    const third = await campaign(api);
    const lead = await addLead({ campaignId: a.id, email: 'stop@sup.example', firstName: 'Stop' });
    const twin = await addLead({ campaignId: b.id, email: 'STOP@sup.example' });
    const bystander = await addLead({ campaignId: a.id, email: 'stay@sup.example' });

    const res = await api.request('POST', `/v1/leads/${lead.id}/suppress`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: lead.id, campaignId: a.id, email: 'stop@sup.example', firstName: 'Stop', status: 'SUPPRESSED' });

    const rowsA = (await allLeads(a.id)).leads;
    expect(rowsA.find((l) => l.id === lead.id)?.status).toBe('SUPPRESSED');
    expect(rowsA.find((l) => l.id === bystander.id)?.status).toBe('NEW');
    expect((await allLeads(b.id)).leads.find((l) => l.id === twin.id)?.status).toBe('SUPPRESSED');
    expect((await engine.deps.store.get(leadKey(twin.id)))?.status).toBe('SUPPRESSED');

    for (const campaignId of [third.id, a.id]) {
      const again = await api.request('POST', '/v1/leads', { campaignId, email: 'Stop@Sup.example' });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/suppress/);
    }
    expect(await leadsCount(third.id)).toBe(0);
    expect(await leadsCount(a.id)).toBe(2);
  });

  it('answers 404 for an unknown lead', async () => {
    const res = await api.request('POST', '/v1/leads/no-such-lead/suppress');
    expect(res.status).toBe(404);
    expect(typeof res.body.error).toBe('string');
  });
});

// ---------------------------------------------------------------- erase

describe('DELETE /v1/leads/erase', () => {
  it('anonymizes every row of the address across campaigns, keeps the counts, and keeps the address out for good', async () => {
    const ADDRESS = 'erin@erase.example';
    const a = await campaign(api);
    const b = await campaign(api);
    const rowA = await addLead({
      campaignId: a.id,
      email: 'Erin@Erase.example',
      firstName: 'Erin',
      lastName: 'Eraseme',
      company: 'Privacy GmbH',
      customFields: { phone: '555 0100', note: 'met at expo' },
    });
    const rowB = await addLead({ campaignId: b.id, email: ADDRESS, firstName: 'Erin', customFields: { city: 'Berlin' } });
    const keeper = await addLead({ campaignId: a.id, email: 'keep@erase.example', firstName: 'Keep', company: 'Stays Ltd' });
    const totalBefore = await totalLeads();

    const res = await api.request('DELETE', '/v1/leads/erase', { email: 'ERIN@erase.example' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ erased: 2 });

    for (const row of [rowA, rowB]) {
      const item = await engine.deps.store.get(leadKey(row.id));
      expect(item, row.id).toBeDefined();
      expect(item!.firstName ?? null).toBeNull();
      expect(item!.lastName ?? null).toBeNull();
      expect(item!.company ?? null).toBeNull();
      expect(item!.customFields ?? {}).toEqual({});
      expect(JSON.stringify(item).toLowerCase()).not.toContain(ADDRESS);
      expect(JSON.stringify(item)).not.toMatch(/Erin|Eraseme|Privacy GmbH|555 0100|Berlin/);
      // No key of the table names the address: the row's id is a keyed hash of campaign and address.
      expect(JSON.stringify(await scanTable()).toLowerCase()).not.toContain(ADDRESS);
    }
    const listedA = (await allLeads(a.id)).leads;
    expect(listedA.find((l) => l.id === rowA.id)).toMatchObject({ firstName: null, lastName: null, company: null, customFields: {} });
    expect(listedA.find((l) => l.id === keeper.id)).toEqual(keeper);

    // Aggregate counts are preserved.
    expect(await leadsCount(a.id)).toBe(2);
    expect(await leadsCount(b.id)).toBe(1);
    expect(await totalLeads()).toBe(totalBefore);

    // Never ingested again, on any path.
    const again = await api.request('POST', '/v1/leads', { campaignId: a.id, email: ADDRESS });
    expect(again.status).toBe(409);
    const third = await campaign(api);
    expect((await api.request('POST', '/v1/leads', { campaignId: third.id, email: ADDRESS })).status).toBe(409);
    const hook = await anon.request('POST', '/v1/leads/webhook', { campaignId: third.id, email: 'Erin@erase.example', firstName: 'Erin' });
    expect(hook.status).toBe(200);
    expect(hook.body).toEqual({ accepted: true });
    const imported = await upload({ campaignId: third.id, csv: `email,first name\n${ADDRESS},Erin\n` });
    expect(imported.body).toMatchObject({ received: 1, imported: 0, suppressed: 1 });
    expect(await leadsCount(third.id)).toBe(0);
    expect(await totalLeads()).toBe(totalBefore);

    // The address appears nowhere: not in any API answer, not in any stored item.
    const everything = JSON.stringify((await allLeads()).leads).toLowerCase();
    expect(everything).not.toContain(ADDRESS);
    expect(everything).toContain('keep@erase.example');
    const raw = await scanTable();
    expect(raw.length).toBeGreaterThan(0);
    const mentions = raw.filter((i) => JSON.stringify(i).toLowerCase().includes(ADDRESS));
    expect(mentions).toEqual([]);
  });

  it('answers { erased: 0 } for an address with no lead, and still keeps it out', async () => {
    const c = await campaign(api);
    const res = await api.request('DELETE', '/v1/leads/erase', { email: 'never@erase.example' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ erased: 0 });
    expect((await api.request('POST', '/v1/leads', { campaignId: c.id, email: 'never@erase.example' })).status).toBe(409);
  });

  it.each([
    [{ email: 'not-an-email' }, /^email: /],
    [{}, /^email is required/],
    [{ email: 'a@erase.example', extra: 1 }, /unknown field extra/],
  ])('refuses %j with 422', async (body, message) => {
    const res = await api.request('DELETE', '/v1/leads/erase', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
  });
});

// ---------------------------------------------------------------- delete

describe('DELETE /v1/leads/{id}', () => {
  it('hard-deletes with 204, then 404; leadsCount follows and the address can be added again', async () => {
    const c = await campaign(api);
    const lead = await addLead({ campaignId: c.id, email: 'gone@del.example', firstName: 'Gone' });
    await addLead({ campaignId: c.id, email: 'other@del.example' });
    expect(await leadsCount(c.id)).toBe(2);
    const before = await totalLeads();

    const res = await api.request('DELETE', `/v1/leads/${lead.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await engine.deps.store.get(leadKey(lead.id))).toBeUndefined();
    expect(await leadsCount(c.id)).toBe(1);
    expect(await totalLeads()).toBe(before - 1);
    expect((await allLeads(c.id)).leads.map((l) => l.id)).not.toContain(lead.id);

    const second = await api.request('DELETE', `/v1/leads/${lead.id}`);
    expect(second.status).toBe(404);
    expect(typeof second.body.error).toBe('string');
    expect(await leadsCount(c.id)).toBe(1);

    const readded = await api.request('POST', '/v1/leads', { campaignId: c.id, email: 'Gone@Del.example' });
    expect(readded.status).toBe(201);
    // A lead's id is derived from its campaign and address: the same address comes back under the same id, with a fresh sequence.
    expect(readded.body.id).toBe(lead.id);
    expect(readded.body).toMatchObject({ email: 'gone@del.example', firstName: null, status: 'NEW' });
    expect(await leadsCount(c.id)).toBe(2);
  });
});

// ---------------------------------------------------------------- guardrail 9

describe('guardrail 9: lead data never expires', () => {
  it('no stored lead item carries a TTL attribute, whatever the ingest path', async () => {
    const c = await campaign(api);
    const created = await addLead({ campaignId: c.id, email: 'ttl-create@ttl.example' });
    await anon.request('POST', '/v1/leads/webhook', { campaignId: c.id, email: 'ttl-hook@ttl.example' });
    const imp = await upload({ campaignId: c.id, csv: 'email\nttl-import@ttl.example\n' });
    expect(imp.body.imported).toBe(1);
    const sup = await addLead({ campaignId: c.id, email: 'ttl-suppress@ttl.example' });
    await api.request('POST', `/v1/leads/${sup.id}/suppress`);
    const era = await addLead({ campaignId: c.id, email: 'ttl-erase@ttl.example' });
    await api.request('DELETE', '/v1/leads/erase', { email: 'ttl-erase@ttl.example' });

    const ttl = table.ttlAttribute;
    expect(ttl).toBe('expiresAt');
    const { leads } = await allLeads(c.id);
    expect(leads).toHaveLength(5);
    for (const l of leads) {
      const item = await engine.deps.store.get(leadKey(l.id));
      expect(item, l.email).toBeDefined();
      expect(item, l.email).not.toHaveProperty(ttl);
      expect(l).not.toHaveProperty(ttl);
    }
    expect((await engine.deps.store.get(leadKey(created.id)))?.[ttl]).toBeUndefined();
    expect((await engine.deps.store.get(leadKey(era.id)))?.[ttl]).toBeUndefined();

    // The whole table: every lead row and suppression entry is kept for good.
    const raw = await scanTable();
    const leadData = raw.filter((i) => /^(LEAD#|SUPPRESSED#)/.test(String(i.pk)));
    expect(leadData.filter((i) => String(i.pk).startsWith('LEAD#')).length).toBeGreaterThanOrEqual(5);
    expect(leadData.filter((i) => ttl in i)).toEqual([]);
  });
});

// ---------------------------------------------------------------- mailbox deletion

describe('deleting a mailbox', () => {
  it('ends the sequence of a lead pinned to it (COMPLETED), and leaves the others alone', async () => {
    const box = await mailbox(api, domain, 'pinned');
    const c = await campaign(api, { mailboxIds: [box.id] });
    const pinned = await addLead({ campaignId: c.id, email: 'pinned@mbx.example', firstName: 'Pinned' });
    const waiting = await addLead({ campaignId: c.id, email: 'waiting@mbx.example' });
    // The sender pins a lead to its mailbox when the first email goes out; do as it does.
    await engine.deps.store.update(leadKey(pinned.id), {
      set: { gsi4pk: pinnedLeads(box.id), gsi4sk: pinned.id, mailboxId: box.id, status: 'CONTACTED' },
    });
    expect((await allLeads(c.id)).leads.find((l) => l.id === pinned.id)?.status).toBe('CONTACTED');

    const res = await api.request('DELETE', `/v1/mailboxes/${box.id}`);
    expect(res.status).toBe(204);

    const rows = (await allLeads(c.id)).leads;
    expect(rows.find((l) => l.id === pinned.id)).toMatchObject({ status: 'COMPLETED', firstName: 'Pinned', email: 'pinned@mbx.example' });
    expect(rows.find((l) => l.id === waiting.id)?.status).toBe('NEW');
    const item = await engine.deps.store.get(leadKey(pinned.id));
    expect(item?.status).toBe('COMPLETED');
    expect(item?.gsi4pk).toBeUndefined();
    expect(await leadsCount(c.id)).toBe(2);
  });
});

// ---------------------------------------------------------------- launch check

describe('launch check and lead fields', () => {
  it('warns FIELD_BLANK for {{company}} with the count of leads that have none, following ingest and delete', async () => {
    const box = await mailbox(api, domain, 'fieldblank');
    const c = await campaign(api, { mailboxIds: [box.id] });
    await addLead({ campaignId: c.id, email: 'fb1@fb.example', firstName: 'One', company: 'Acme' });
    await addLead({ campaignId: c.id, email: 'fb2@fb.example', firstName: 'Two', company: 'Beta' });
    await addLead({ campaignId: c.id, email: 'fb3@fb.example', firstName: 'Three', company: 'Gamma' });
    const blank1 = await addLead({ campaignId: c.id, email: 'fb4@fb.example', firstName: 'Four' });
    await addLead({ campaignId: c.id, email: 'fb5@fb.example', firstName: 'Five', company: '   ' });

    let warnings = await launchWarnings(c.id);
    const blank = warnings.filter((w) => w.code === 'FIELD_BLANK');
    expect(blank).toEqual([expect.objectContaining({ code: 'FIELD_BLANK', field: 'company', blankCount: 2 })]);
    expect(blank[0]!.message).toMatch(/2 of 5/);
    expect(warnings.map((w) => w.code)).not.toContain('NO_LEADS');

    // A CSV row without a company is one more blank; deleting a blank lead is one fewer.
    const imp = await upload({ campaignId: c.id, csv: 'email,first name\nfb6@fb.example,Six\n' });
    expect(imp.body.imported).toBe(1);
    warnings = await launchWarnings(c.id);
    expect(warnings.find((w) => w.code === 'FIELD_BLANK' && w.field === 'company')?.blankCount).toBe(3);
    expect((await api.request('DELETE', `/v1/leads/${blank1.id}`)).status).toBe(204);
    warnings = await launchWarnings(c.id);
    expect(warnings.find((w) => w.code === 'FIELD_BLANK' && w.field === 'company')?.blankCount).toBe(2);
    // Every lead has a first name: no warning for it, and the check still allows launch.
    expect(warnings.find((w) => w.field === 'firstName')).toBeUndefined();
    expect((await api.request('GET', `/v1/campaigns/${c.id}/launch-check`)).body.canLaunch).toBe(true);
  });
});
