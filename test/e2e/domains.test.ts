import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, mailbox } from '../helpers/fixtures.ts';

let engine: TestEngine;
let api: Api;
beforeAll(async () => {
  engine = await startTestEngine();
  api = engine.api;
  await api.login();
});
afterAll(() => engine?.stop());

describe('POST /v1/domains', () => {
  it('adds a domain without an address (guardrail 2) and answers every field', async () => {
    const res = await api.request('POST', '/v1/domains', { domainName: 'Acme-Mail.COM.' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      domainName: 'acme-mail.com',
      redirectUrl: null,
      dkimSelector: null,
      label: null,
      mailingAddress: null,
      mailingAddressParts: null,
      usedBy: { campaigns: 0, sending: 0, paused: 0, drafts: 0 },
    });
    expect(typeof res.body.id).toBe('string');
  });

  it('refuses the same domain twice with 409', async () => {
    await api.request('POST', '/v1/domains', { domainName: 'twice.com' });
    const again = await api.request('POST', '/v1/domains', { domainName: 'TWICE.com' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/twice\.com/);
  });

  it.each([
    [{}, /^domainName is required/],
    [{ domainName: 'not a domain' }, /^domainName: /],
    [{ domainName: 'x.com', dkimSelector: 'bad_selector' }, /^dkimSelector: /],
    [{ domainName: 'x.com', dkimSelector: 's1.example' }, /^dkimSelector: /],
    [{ domainName: 'x.com', label: 'l'.repeat(81) }, /^label: must be at most 80/],
    [{ domainName: 'x.com', mailingAddress: 'a'.repeat(501) }, /^mailingAddress: must be at most 500/],
    [{ domainName: 'x.com', mailingAddressParts: { street: '1 Main St', country: 'US' } }, /^mailingAddressParts\.city/],
    [{ domainName: 'x.com', redirectUrl: 'javascript:alert(1)' }, /^redirectUrl: /],
    [{ domainName: 'x.com', color: 'blue' }, /unknown field color/],
  ])('refuses %j with 422 naming the field, and stores nothing', async (body, message) => {
    const res = await api.request('POST', '/v1/domains', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
    const list = await api.request('GET', '/v1/domains');
    expect(list.body.map((d: { domainName: string }) => d.domainName)).not.toContain('x.com');
  });

  it('builds mailingAddress from mailingAddressParts, one line per footer line', async () => {
    const res = await api.request('POST', '/v1/domains', {
      domainName: 'parts.io',
      mailingAddressParts: {
        businessName: 'Parts Ltd',
        street: '12 High St',
        suite: 'Unit 4',
        city: 'Leeds',
        postalCode: 'LS1 4AB',
        country: 'United Kingdom',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.mailingAddress).toBe('Parts Ltd\n12 High St\nUnit 4\nLeeds, LS1 4AB\nUnited Kingdom');
    expect(res.body.mailingAddressParts).toMatchObject({ city: 'Leeds', country: 'United Kingdom' });
  });
});

describe('PATCH /v1/domains/{id}', () => {
  it('changes only the fields present; null or empty clears dkimSelector, blank clears the address', async () => {
    const created = (
      await api.request('POST', '/v1/domains', {
        domainName: 'patch.dev',
        dkimSelector: 'k1',
        label: 'Client A',
        mailingAddress: '1 Road\nTown',
      })
    ).body;
    const a = await api.request('PATCH', `/v1/domains/${created.id}`, { label: 'Client B' });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ label: 'Client B', dkimSelector: 'k1', mailingAddress: '1 Road\nTown', usedBy: { campaigns: 0 } });
    expect((await api.request('PATCH', `/v1/domains/${created.id}`, { dkimSelector: '' })).body.dkimSelector).toBeNull();
    await api.request('PATCH', `/v1/domains/${created.id}`, { dkimSelector: 'k2' });
    expect((await api.request('PATCH', `/v1/domains/${created.id}`, { dkimSelector: null })).body.dkimSelector).toBeNull();
    expect((await api.request('PATCH', `/v1/domains/${created.id}`, { mailingAddress: '   ' })).body.mailingAddress).toBeNull();
    expect((await api.request('PATCH', `/v1/domains/${created.id}`, { dkimSelector: '-bad-' })).status).toBe(422);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await api.request('PATCH', '/v1/domains/nope', { label: 'x' });
    expect(res.status).toBe(404);
    expect(typeof res.body.error).toBe('string');
  });

  it('refuses to clear an address that launched campaigns send with, unless confirm is true (409 ADDRESS_IN_USE)', async () => {
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'inuse.com', mailingAddress: '5 Elm St\nDover' })).body;
    const box = await mailbox(api, domain, 'sales');
    const live = await campaign(api, { name: 'Live one', mailboxIds: [box.id] });
    const draft = await campaign(api, { name: 'Draft one', mailboxIds: [box.id] });
    expect((await api.request('POST', `/v1/campaigns/${live.id}/launch`)).status).toBe(200);

    const list = await api.request('GET', '/v1/domains');
    expect(list.body.find((d: { id: string }) => d.id === domain.id).usedBy).toEqual({ campaigns: 2, sending: 1, paused: 0, drafts: 1 });

    const refused = await api.request('PATCH', `/v1/domains/${domain.id}`, { mailingAddress: null });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'ADDRESS_IN_USE', campaigns: [{ id: live.id, name: 'Live one', status: 'ACTIVE' }] });
    expect(refused.body.campaigns).toHaveLength(1);
    expect((await api.request('GET', '/v1/domains')).body.find((d: { id: string }) => d.id === domain.id).mailingAddress).toBe(
      '5 Elm St\nDover',
    );

    // Other fields may change meanwhile.
    expect((await api.request('PATCH', `/v1/domains/${domain.id}`, { label: 'Brand' })).status).toBe(200);

    const confirmed = await api.request('PATCH', `/v1/domains/${domain.id}`, { mailingAddress: null, confirm: true });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.mailingAddress).toBeNull();
    expect(confirmed.body.usedBy).toEqual({ campaigns: 2, sending: 1, paused: 0, drafts: 1 });
    void draft;
  });

  it('lets a domain used only by drafts clear its address without confirm', async () => {
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'drafty.com', mailingAddress: '9 Oak Ave' })).body;
    const box = await mailbox(api, domain, 'hello');
    await campaign(api, { mailboxIds: [box.id] });
    expect((await api.request('PATCH', `/v1/domains/${domain.id}`, { mailingAddress: '' })).status).toBe(200);
  });
});
