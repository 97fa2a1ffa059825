import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxKey } from '@outbound/core/mailbox/keys';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, mailbox } from '../helpers/fixtures.ts';

let engine: TestEngine;
let api: Api;
let domain: { id: string; domainName: string };
beforeAll(async () => {
  engine = await startTestEngine();
  api = engine.api;
  await api.login();
  domain = await domainWithAddress(api, 'boxes.com');
});
afterAll(() => engine?.stop());

const SECRET = 'hunter2-mailbox-secret';

describe('POST /v1/mailboxes', () => {
  it('connects a mailbox with the documented defaults and never returns or stores the password in clear', async () => {
    const res = await api.request('POST', '/v1/mailboxes', {
      email: 'Alice@Boxes.com',
      domainId: domain.id,
      smtpHost: 'smtp.boxes.test',
      imapHost: 'imap.boxes.test',
      authPassword: SECRET,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: 'alice@boxes.com',
      domainId: domain.id,
      provider: 'SMTP_CUSTOM',
      dailyCap: 25,
      status: 'ACTIVE',
      senderName: null,
    });
    const everything = JSON.stringify([res.body, (await api.request('GET', '/v1/mailboxes')).body]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toMatch(/authPassword|sealed/);
    const raw = await engine.deps.store.get(mailboxKey(res.body.id));
    expect(JSON.stringify(raw)).not.toContain(SECRET);
    expect(String(raw?.sealedPassword)).toMatch(/^v1\./);
  });

  it('answers 409 for an address already connected, in any case', async () => {
    await mailbox(api, domain, 'bob');
    const again = await api.request('POST', '/v1/mailboxes', { email: 'BOB@boxes.com', domainId: domain.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already connected/);
  });

  it.each([
    [{ domainId: 'x' }, /^email is required/],
    [{ email: 'a@boxes.com' }, /^domainId is required/],
    [{ email: 'nope', domainId: 'x' }, /^email: /],
    [{ email: 'c@boxes.com', domainId: 'missing' }, /^domainId: there is no domain/],
    [{ email: 'c@boxes.com', domainId: '$D', dailyCap: 0 }, /^dailyCap: must be from 1 to 1000/],
    [{ email: 'c@boxes.com', domainId: '$D', dailyCap: 1001 }, /^dailyCap: /],
    [{ email: 'c@boxes.com', domainId: '$D', senderName: 'n'.repeat(81) }, /^senderName: must be at most 80/],
    [{ email: 'c@boxes.com', domainId: '$D', provider: 'YAHOO' }, /^provider: /],
    [{ email: 'c@boxes.com', domainId: '$D', smtpPort: 70000 }, /^smtpPort: /],
    [{ email: 'c@boxes.com', domainId: '$D', status: 'ACTIVE' }, /unknown field status/],
  ])('refuses %j with 422 and saves nothing', async (body, message) => {
    const res = await api.request('POST', '/v1/mailboxes', JSON.parse(JSON.stringify(body).replace('$D', domain.id)));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
    const all = (await api.request('GET', '/v1/mailboxes')).body;
    expect(all.map((m: { email: string }) => m.email)).not.toContain('c@boxes.com');
  });

  it('creates an OAuth mailbox without a password, paused until its connection completes', async () => {
    const res = await api.request('POST', '/v1/mailboxes', { email: 'g@boxes.com', domainId: domain.id, provider: 'GOOGLE' });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('PAUSED');
    const activate = await api.request('PATCH', `/v1/mailboxes/${res.body.id}`, { status: 'ACTIVE' });
    expect(activate.status).toBe(422);
    expect(activate.body.error).toMatch(/OAuth/);
  });
});

describe('PATCH and DELETE /v1/mailboxes/{id}', () => {
  it('changes status, dailyCap and senderName only; null or blank clears senderName', async () => {
    const box = await mailbox(api, domain, 'patchy');
    const res = await api.request('PATCH', `/v1/mailboxes/${box.id}`, { status: 'WARMING', dailyCap: 40 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'WARMING', dailyCap: 40, senderName: 'Sam Sender', email: box.email });
    expect((await api.request('PATCH', `/v1/mailboxes/${box.id}`, { senderName: null })).body.senderName).toBeNull();
    await api.request('PATCH', `/v1/mailboxes/${box.id}`, { senderName: 'Pat' });
    expect((await api.request('PATCH', `/v1/mailboxes/${box.id}`, { senderName: '  ' })).body.senderName).toBeNull();
    expect((await api.request('PATCH', `/v1/mailboxes/${box.id}`, { email: 'x@boxes.com' })).status).toBe(422);
    expect((await api.request('PATCH', `/v1/mailboxes/${box.id}`, { status: 'ERROR' })).status).toBe(422);
  });

  it('answers 404 for an unknown mailbox', async () => {
    expect((await api.request('PATCH', '/v1/mailboxes/nope', { dailyCap: 3 })).status).toBe(404);
    expect((await api.request('DELETE', '/v1/mailboxes/nope')).status).toBe(404);
  });

  it('deletes with 204, leaves every campaign that picked it, and frees the address', async () => {
    const box = await mailbox(api, domain, 'gone');
    const other = await mailbox(api, domain, 'stays');
    const c = await campaign(api, { mailboxIds: [box.id, other.id] });
    const res = await api.request('DELETE', `/v1/mailboxes/${box.id}`);
    expect(res.status).toBe(204);
    expect((await api.request('GET', `/v1/campaigns/${c.id}`)).body.mailboxIds).toEqual([other.id]);
    expect((await api.request('GET', '/v1/mailboxes')).body.map((m: { id: string }) => m.id)).not.toContain(box.id);
    expect((await api.request('DELETE', `/v1/mailboxes/${box.id}`)).status).toBe(404);
    await mailbox(api, domain, 'gone');
  });
});
