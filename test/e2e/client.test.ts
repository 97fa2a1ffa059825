/**
 * The typed client (packages/client) against a running engine: every call
 * below is typed from docs/openapi.json, so this file typechecking is half of
 * the test, and every answer is also held to the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createOutboundClient, type OutboundClient, type Schemas } from '@outbound/client/index';
import { ADMIN, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { openApiChecker } from '../helpers/openapi-check.ts';

let engine: TestEngine;
let token: string | undefined;
let api: OutboundClient;
/** Requests the client made, as the engine saw them (method, path and the authorization header). */
const seen: { method: string; path: string; authorization: string | null }[] = [];

/** fetch, with each answer held to the document like every other end-to-end test's. */
async function checkingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  seen.push({ method: request.method, path: url.pathname, authorization: request.headers.get('authorization') });
  const res = await fetch(request);
  openApiChecker().assert({
    method: request.method,
    path: url.pathname,
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    text: await res.clone().text(),
    location: res.headers.get('location'),
  });
  return res;
}

beforeAll(async () => {
  engine = await startTestEngine();
  // Made before there is a token: the function is read at each request.
  api = createOutboundClient({ baseUrl: engine.url, token: () => token, fetch: checkingFetch });
});
afterAll(() => engine?.stop());

describe('the typed client against the engine', () => {
  it('signs in, and sends the token on every call after that', async () => {
    const refused = await api.GET('/v1/campaigns');
    expect(refused.response.status).toBe(401);
    expect(seen.at(-1)!.authorization).toBeNull();
    if (!refused.error) throw new Error('expected a refusal');
    expect(refused.error.error).toMatch(/token/i);

    const signIn = await api.POST('/v1/auth/login', { body: ADMIN });
    if (!signIn.data) throw new Error(`login: ${JSON.stringify(signIn.error)}`);
    expectTypeOf(signIn.data.token).toEqualTypeOf<string>();
    token = signIn.data.token;

    const wrong = await api.POST('/v1/auth/login', { body: { email: ADMIN.email, password: 'not it' } });
    expect(wrong.response.status).toBe(401);
    expect(wrong.error?.error).toBe('The email or password is not right.');
  });

  it('adds a domain, creates a campaign, reads it, changes it, and lists campaigns', async () => {
    const domain = await api.POST('/v1/domains', {
      body: { domainName: 'client-test.com', mailingAddress: '1 Main St\nSpringfield, IL 62701\nUSA' },
    });
    if (!domain.data) throw new Error(`domain: ${JSON.stringify(domain.error)}`);
    expect(domain.response.status).toBe(201);
    expect(seen.at(-1)!.authorization).toBe(`Bearer ${token}`);
    const added: Schemas['Domain'] = domain.data;
    expect(added).toMatchObject({ domainName: 'client-test.com', label: null, usedBy: { campaigns: 0, sending: 0, paused: 0, drafts: 0 } });

    const before = await api.GET('/v1/campaigns');
    if (!before.data) throw new Error(`campaigns: ${JSON.stringify(before.error)}`);
    expect(before.data).toEqual([]);

    const created = await api.POST('/v1/campaigns', {
      body: {
        name: 'Spring outreach',
        aiPromptTemplate: '',
        subject: '{Quick|Short} question, {{firstName}}',
        template: 'Hi {{firstName}},\n\nWould a short call next week make sense?\n\n{{senderName}}',
        steps: [{ waitDays: 3, body: 'Just bumping this, {{firstName}}.' }],
        schedule: { timezone: 'America/New_York', start: '09:00', end: '17:00' },
      },
    });
    if (!created.data) throw new Error(`campaign: ${JSON.stringify(created.error)}`);
    expect(created.response.status).toBe(201);
    const campaign: Schemas['Campaign'] = created.data;
    expect(campaign.status).toBe('DRAFT');
    expectTypeOf(campaign.status).toEqualTypeOf<'DRAFT' | 'ACTIVE' | 'PAUSED' | 'ARCHIVED'>();
    expect(campaign.schedule).toEqual({
      timezone: 'America/New_York',
      useLeadTimezone: true,
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start: '09:00',
      end: '17:00',
    });

    const got = await api.GET('/v1/campaigns/{id}', { params: { path: { id: campaign.id } } });
    if (!got.data) throw new Error(`get: ${JSON.stringify(got.error)}`);
    expect(got.data).toEqual(campaign);

    const patched = await api.PATCH('/v1/campaigns/{id}', {
      params: { path: { id: campaign.id } },
      body: { subject: 'A question about {{company}}', schedule: null },
    });
    if (!patched.data) throw new Error(`patch: ${JSON.stringify(patched.error)}`);
    expect(patched.data).toMatchObject({ id: campaign.id, subject: 'A question about {{company}}', schedule: null, status: 'DRAFT' });

    const listed = await api.GET('/v1/campaigns');
    if (!listed.data) throw new Error(`campaigns: ${JSON.stringify(listed.error)}`);
    const rows: Schemas['CampaignRow'][] = listed.data;
    expect(rows.map((r) => [r.id, r.subject, r.status])).toEqual([[campaign.id, 'A question about {{company}}', 'DRAFT']]);
    expect(rows[0]!.launch.canLaunch).toBe(false);
  });

  it('reads refusals as typed bodies: a 404 `{ error }`, a refused launch with its problems, a 422 naming the field', async () => {
    const missing = await api.GET('/v1/campaigns/{id}', { params: { path: { id: '01NOSUCHCAMPAIGN0000000000' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    if (!missing.error) throw new Error('expected a 404');
    expectTypeOf(missing.error.error).toEqualTypeOf<string>();
    expect(missing.error.error).toMatch(/campaign/i);

    const [row] = (await api.GET('/v1/campaigns')).data ?? [];
    const launch = await api.POST('/v1/campaigns/{id}/launch', { params: { path: { id: row!.id } } });
    expect(launch.response.status).toBe(422);
    if (!launch.error) throw new Error('expected a refused launch');
    // Only a refused launch's body has `problems`: narrowed by the field, as the document describes it.
    if (!('problems' in launch.error)) throw new Error(`expected problems: ${JSON.stringify(launch.error)}`);
    expect(launch.error.problems.map((p) => p.code)).toContain('NO_SENDERS');

    // @ts-expect-error aiPromptTemplate is required: the types refuse the call before the engine does
    const invalid = await api.POST('/v1/campaigns', { body: { name: 'No prompt' } });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error?.error).toMatch(/^aiPromptTemplate/);
  });

  it('lists replies with typed filters (none yet)', async () => {
    const [row] = (await api.GET('/v1/campaigns')).data ?? [];
    const replies = await api.GET('/v1/replies', {
      params: { query: { campaignId: row!.id, status: 'INTERESTED,QUESTION', unread: 'true', limit: 20 } },
    });
    if (!replies.data) throw new Error(`replies: ${JSON.stringify(replies.error)}`);
    const page: { replies: Schemas['Reply'][]; nextCursor: string | null } = replies.data;
    expect(page).toEqual({ replies: [], nextCursor: null });
    expect(seen.at(-1)!.path).toBe('/v1/replies');

    const bad = await api.GET('/v1/replies', { params: { query: { limit: 0 } } });
    expect(bad.response.status).toBe(422);
    expect(bad.error?.error).toMatch(/^limit/);
  });
});
