/**
 * Connecting Google and Microsoft mailboxes, end to end: an OAuth server on
 * loopback (authorize, token with a PKCE check, userinfo), the engine's
 * authorize and callback routes followed as a browser would, then a send over
 * SMTP XOAUTH2 to a server that checks the token, and an IMAP read with
 * XOAUTH2 against Dovecot that asks the OAuth server about the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxStateKey } from '@outbound/core/inbound/keys';
import { mailboxKey } from '@outbound/core/mailbox/keys';
import { imapLogin, smtpTransport } from '@outbound/core/mailbox/access';
import { fromItem as mailboxFromItem } from '@outbound/core/mailbox/entity';
import { ManualClock, scaledClock } from '@outbound/core/ports/clock';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually } from '../helpers/fixtures.ts';
import { startDovecot, waitForLog, type TestDovecot } from '../helpers/dovecot.ts';
import { startOAuthServer, type TestOAuthServer } from '../helpers/oauth-server.ts';
import { closedPort, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';
import * as inbound from '../fixtures/inbound.ts';

let google: TestOAuthServer;
let microsoft: TestOAuthServer;
let dovecot: TestDovecot;
let smtp: TestSmtpServer;
let engine: TestEngine;

/** Real time, moved forward by hand where a test needs minutes or hours of wall time to pass (token and state expiry). */
class WallClock extends ManualClock {
  offset = 0;
  override now() {
    return Date.now() + this.offset;
  }
}
const wall = new WallClock();

const GOOGLE_USER = 'gina@gco.com';
const MS_USER = 'mo@msco.com';

beforeAll(async () => {
  google = await startOAuthServer({
    profile: 'google',
    users: { [GOOGLE_USER]: { name: 'Gina Google' }, 'someone@else.com': {}, 'nameless@gco.com': { noEmail: true } },
  });
  microsoft = await startOAuthServer({ profile: 'microsoft', users: { [MS_USER]: { name: 'Mo Microsoft' } }, rotateRefreshTokens: true });
  // Dovecot asks the Google server about tokens: the Microsoft mailbox's IMAP port answers nobody (its reads fail quietly, by design of this test).
  const verify = (user: string, token: string) => [google, microsoft].some((s) => s.accessTokenUser(token) === user);
  smtp = await startSmtpServer({ oauth: { verify } });
  // XOAUTH2 only (as Outlook offers it): imapflow would take OAUTHBEARER when offered.
  dovecot = await startDovecot({}, { oauth2: { introspectionUrl: google.introspectUrl, mechanisms: ['xoauth2'] } });
  // The installation's provider servers: an OAuth mailbox's token goes to these and nowhere else.
  const smtpServer = { host: '127.0.0.1', port: smtp.port };
  engine = await startTestEngine({
    realTime: true,
    timeScale: 10_000,
    wallClock: wall,
    clock: scaledClock(10_000),
    oauth: {
      google: {
        clientId: google.clientId,
        clientSecret: google.clientSecret,
        authUrl: google.authUrl,
        tokenUrl: google.tokenUrl,
        userinfoUrl: google.userinfoUrl,
        servers: { smtp: smtpServer, imap: { host: '127.0.0.1', port: dovecot.imapPort } },
      },
      microsoft: {
        clientId: microsoft.clientId,
        clientSecret: microsoft.clientSecret,
        authUrl: microsoft.authUrl,
        tokenUrl: microsoft.tokenUrl,
        userinfoUrl: microsoft.userinfoUrl,
        servers: { smtp: smtpServer, imap: { host: '127.0.0.1', port: await closedPort() } },
      },
    },
  });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
  await dovecot?.stop();
  await google?.stop();
  await microsoft?.stop();
});

/** Follows a redirect by hand, as a browser would, without sending the engine's bearer token anywhere. */
async function visit(url: string) {
  const res = await checkedFetch(url, { redirect: 'manual' });
  return {
    status: res.status,
    location: res.headers.get('location') ?? '',
    text: await res.text(),
    type: res.headers.get('content-type') ?? '',
  };
}

async function oauthMailbox(domainName: string, email: string, provider: 'GOOGLE' | 'MICROSOFT') {
  const domain = await domainWithAddress(engine.api, domainName);
  // No servers given: an OAuth mailbox uses its provider's (here the installation's stand-ins).
  const res = await engine.api.request('POST', '/v1/mailboxes', { email, domainId: domain.id, provider, dailyCap: 1000 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.status).toBe('PAUSED');
  return res.body as { id: string; email: string };
}

/** Authorize, consent at the provider, and land on the engine's callback: the whole browser round trip. */
async function connect(server: TestOAuthServer, provider: 'google' | 'microsoft', mailboxId: string, as: string) {
  server.signInAs(as);
  const start = await visit(`${engine.url}/v1/oauth/${provider}/authorize?mailboxId=${mailboxId}`);
  expect(start.status).toBe(302);
  const atProvider = await visit(start.location);
  expect(atProvider.status).toBe(302);
  return { start, back: await visit(atProvider.location) };
}

describe('OAuth mailboxes', { timeout: 120_000 }, () => {
  it('authorize sends the browser to the provider with PKCE S256, a signed state and the scopes; bad requests are refused', async () => {
    const box = await oauthMailbox('gco.com', GOOGLE_USER, 'GOOGLE');
    const start = await visit(`${engine.url}/v1/oauth/google/authorize?mailboxId=${box.id}`);
    expect(start.status).toBe(302);
    const url = new URL(start.location);
    expect(`${url.origin}${url.pathname}`).toBe(google.authUrl);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      response_type: 'code',
      client_id: google.clientId,
      redirect_uri: `${engine.deps.config.publicBaseUrl}/v1/oauth/google/callback`,
      scope: 'https://mail.google.com/ openid email profile',
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
    });
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.state!.split('.')).toHaveLength(3);
    expect(start.location).not.toContain(google.clientSecret);
    // The route is public: its redirect does not name the mailbox's address.
    expect(q.login_hint).toBeUndefined();
    expect(start.location).not.toContain(encodeURIComponent(GOOGLE_USER));

    expect((await engine.api.request('GET', '/v1/oauth/google/authorize?mailboxId=nope')).status).toBe(404);
    expect((await engine.api.request('GET', '/v1/oauth/google/authorize')).status).toBe(422);
    expect((await engine.api.request('GET', `/v1/oauth/microsoft/authorize?mailboxId=${box.id}`)).status).toBe(422);
    expect((await engine.api.request('GET', '/v1/oauth/yahoo/authorize?mailboxId=x')).status).toBe(404);
    const domain = await domainWithAddress(engine.api, 'pwco.com');
    const withPassword = await engine.api.request('POST', '/v1/mailboxes', {
      email: 'p@pwco.com',
      domainId: domain.id,
      provider: 'GOOGLE',
      authPassword: 'app-password',
      smtpHost: 'smtp.mail.test',
    });
    expect((await engine.api.request('GET', `/v1/oauth/google/authorize?mailboxId=${withPassword.body.id}`)).status).toBe(422);
  });

  it('the callback connects a Google mailbox, which then sends over SMTP XOAUTH2 and is read over IMAP XOAUTH2', async () => {
    const box = (await engine.api.request('GET', '/v1/mailboxes')).body.find((m: { email: string }) => m.email === GOOGLE_USER);
    const { back } = await connect(google, 'google', box.id, GOOGLE_USER);
    expect(back.status).toBe(200);
    expect(back.type).toContain('text/html');
    expect(back.text).toContain('Mailbox connected');
    // The exchange carried the PKCE verifier (the server checks it against the challenge) and the client secret.
    expect(google.tokenRequests.authorization_code).toBe(1);

    const row = (await engine.api.request('GET', '/v1/mailboxes')).body.find((m: { id: string }) => m.id === box.id);
    expect(row).toMatchObject({ status: 'ACTIVE', senderName: 'Gina Google' });
    const stored = await engine.deps.store.get(mailboxKey(box.id));
    expect(String(stored!.sealedRefreshToken)).toMatch(/^v1\./);
    for (const token of google.issuedRefreshTokens()) {
      expect(JSON.stringify(row)).not.toContain(token);
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(JSON.stringify(engine.logs)).not.toContain(token);
    }
    expect(JSON.stringify(engine.logs)).not.toContain(google.clientSecret);

    // A campaign sends from it: SMTP signs in with XOAUTH2 and a token the server accepts.
    const c = await campaign(engine.api, { mailboxIds: [box.id] });
    const leadRes = await engine.api.request('POST', '/v1/leads', {
      campaignId: c.id,
      email: 'lena@client.com',
      firstName: 'Lena',
      company: 'Co',
    });
    expect((await engine.api.request('POST', `/v1/campaigns/${c.id}/launch`)).status).toBe(200);
    const [sent] = await smtp.waitFor(1, 30_000);
    expect(sent!.envelope).toMatchObject({ from: GOOGLE_USER, to: ['lena@client.com'] });
    expect(smtp.logins.at(-1)).toMatchObject({ user: GOOGLE_USER, ok: true, method: 'XOAUTH2' });

    // The reply is read over IMAP with XOAUTH2 (Dovecot asks the OAuth server about the token).
    await dovecot.deliver(
      GOOGLE_USER,
      inbound.reply({
        mailbox: GOOGLE_USER,
        from: 'lena@client.com',
        subject: `Re: ${sent!.subject}`,
        body: 'Interested, send details.',
        inReplyTo: sent!.messageId,
      }),
    );
    await eventually(
      async () => (await engine.api.request('GET', `/v1/replies?campaignId=${c.id}`)).body.replies.length === 1,
      30_000,
      'the reply read over XOAUTH2',
    ).catch(async (err) => {
      // Say why: the reader's own record of its last try.
      throw new Error(
        `${(err as Error).message}; inbox state ${JSON.stringify(await engine.deps.store.get(inboxStateKey(box.id)))}; logs ${JSON.stringify(engine.logs.filter((l) => String(l.msg).includes('inbox')))}`,
      );
    });
    // Dovecot's own log says how the engine signed in (its log process writes the line in its own time).
    await waitForLog(dovecot, new RegExp(`Login: user=<${GOOGLE_USER}>, method=XOAUTH2`));
    const lead = (await engine.api.request('GET', `/v1/leads?campaignId=${c.id}`)).body.leads.find(
      (l: { id: string }) => l.id === leadRes.body.id,
    );
    expect(lead.status).toBe('REPLIED');
    // One refresh at most served the send and the reads: the access token is kept while it is good.
    expect(google.tokenRequests.refresh_token ?? 0).toBeLessThanOrEqual(1);
  });

  it("an OAuth mailbox uses its provider's servers only: other hosts are refused at create, and a host written into its row never gets its token", async () => {
    const domain = await domainWithAddress(engine.api, 'hostco.com');
    for (const hosts of [
      { imapHost: 'imap.attacker.example' },
      { smtpHost: 'smtp.attacker.example' },
      { imapHost: '127.0.0.1', imapPort: 1 },
    ]) {
      const res = await engine.api.request('POST', '/v1/mailboxes', {
        email: 'hal@hostco.com',
        domainId: domain.id,
        provider: 'GOOGLE',
        ...hosts,
      });
      expect(res.status, JSON.stringify(hosts)).toBe(422);
      expect(res.body.error).toMatch(/uses Google's own servers .* app password/);
    }
    expect(
      (await engine.api.request('GET', '/v1/mailboxes')).body.find((m: { email: string }) => m.email === 'hal@hostco.com'),
    ).toBeUndefined();
    // With an app password the owner may use any server (their own secret, their own choice).
    const withPassword = await engine.api.request('POST', '/v1/mailboxes', {
      email: 'hal@hostco.com',
      domainId: domain.id,
      provider: 'GOOGLE',
      authPassword: 'app-password',
      smtpHost: 'smtp.mail.test',
      imapHost: 'imap.mail.test',
    });
    expect(withPassword.status).toBe(201);

    // A connected mailbox whose row names other servers (written before this rule, or by hand): its token still goes only to the provider's.
    const box = (await engine.api.request('GET', '/v1/mailboxes')).body.find((m: { email: string }) => m.email === GOOGLE_USER);
    await engine.deps.store.update(mailboxKey(box.id), {
      set: { imapHost: 'imap.attacker.example', imapPort: 993, smtpHost: 'smtp.attacker.example', smtpPort: 587 },
    });
    const mailbox = mailboxFromItem((await engine.deps.store.get(mailboxKey(box.id)))!);
    expect(await imapLogin(engine.deps, mailbox)).toMatchObject({
      host: '127.0.0.1',
      port: dovecot.imapPort,
      user: GOOGLE_USER,
      accessToken: expect.any(String),
    });
    expect(await smtpTransport(engine.deps, mailbox)).toMatchObject({ host: '127.0.0.1', port: smtp.port, auth: { type: 'oauth2' } });
  });

  it('a bad, tampered, reused or expired state, or a refused exchange, answers a 400 page and changes nothing', async () => {
    const box = await oauthMailbox('msco.com', MS_USER, 'MICROSOFT');
    microsoft.signInAs(MS_USER);
    const start = await visit(`${engine.url}/v1/oauth/microsoft/authorize?mailboxId=${box.id}`);
    const atProvider = await visit(start.location);
    const back = new URL(atProvider.location);
    const state = back.searchParams.get('state')!;
    const code = back.searchParams.get('code')!;
    const callback = (params: Record<string, string | undefined>) =>
      visit(
        `${engine.url}/v1/oauth/microsoft/callback?${new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined))}`,
      );

    const tampered = state.slice(0, -2) + (state.endsWith('AA') ? 'BB' : 'AA');
    for (const params of [{ code, state: tampered }, { code, state: 'not-a-state' }, { code }, { error: 'access_denied', state }]) {
      const page = await callback(params);
      expect(page.status, JSON.stringify(params)).toBe(400);
      expect(page.type).toContain('text/html');
    }
    // A wrong code is refused by the provider: a 400 page, and the state is spent.
    expect((await callback({ code: 'wrong-code', state })).status).toBe(400);
    expect((await engine.deps.store.get(mailboxKey(box.id)))!.status).toBe('PAUSED');
    // A state already used cannot be used again, even with a good code.
    expect((await callback({ code, state })).text).toContain('already used');

    // Expiry is on the wall clock: ten minutes on, a fresh state no longer works.
    const again = await visit((await visit(`${engine.url}/v1/oauth/microsoft/authorize?mailboxId=${box.id}`)).location);
    const fresh = new URL(again.location);
    wall.offset = 11 * 60_000;
    try {
      const late = await callback({ code: fresh.searchParams.get('code')!, state: fresh.searchParams.get('state')! });
      expect(late.status).toBe(400);
      expect(late.text).toContain('expired');
    } finally {
      wall.offset = 0;
    }
    const row = await engine.deps.store.get(mailboxKey(box.id));
    expect(row).toMatchObject({ status: 'PAUSED', auth: 'oauth-pending' });
    expect(row!.sealedRefreshToken).toBeUndefined();

    // Signed in as another account than the mailbox: refused in plain words.
    const gBox = await oauthMailbox('gco2.com', 'gus@gco2.com', 'GOOGLE');
    const { back: wrongUser } = await connect(google, 'google', gBox.id, 'someone@else.com');
    expect(wrongUser.status).toBe(400);
    expect(wrongUser.text).toContain('someone@else.com');
    expect((await engine.deps.store.get(mailboxKey(gBox.id)))!.status).toBe('PAUSED');
    // Signed in as an account whose address neither the profile nor the ID token names: refused too (it used to pass unchecked).
    const { back: nameless } = await connect(google, 'google', gBox.id, 'nameless@gco.com');
    expect(nameless.status).toBe(400);
    expect(nameless.text).toContain('did not say which account signed in');
    expect((await engine.deps.store.get(mailboxKey(gBox.id)))!.status).toBe('PAUSED');

    // And the good path still works for Microsoft, with the profile's displayName.
    const { back: ok } = await connect(microsoft, 'microsoft', box.id, MS_USER);
    expect(ok.status).toBe(200);
    expect((await engine.api.request('GET', '/v1/mailboxes')).body.find((m: { id: string }) => m.id === box.id)).toMatchObject({
      status: 'ACTIVE',
      senderName: 'Mo Microsoft',
    });
  });

  it('a refused refresh marks the mailbox ERROR with a reason and stops its sends', async () => {
    const box = (await engine.api.request('GET', '/v1/mailboxes')).body.find((m: { email: string }) => m.email === MS_USER);
    const c = await campaign(engine.api, { mailboxIds: [box.id] });
    await engine.api.request('POST', '/v1/leads', { campaignId: c.id, email: 'nobody@client.com', firstName: 'No', company: 'Co' });
    // The poller renews the token of a freshly connected mailbox on its own: joined here, so no renewal asked before
    // the revocation is answered after the clock jump below (its token would then look fresh for another hour).
    await imapLogin(engine.deps, mailboxFromItem((await engine.deps.store.get(mailboxKey(box.id)))!));
    // The grant is revoked at the provider, and two hours pass: the engine's access token has expired and must be renewed.
    microsoft.revokeAll();
    wall.offset = 2 * 3600_000;
    const sentBefore = smtp.messages.filter((m) => m.envelope.to[0] === 'nobody@client.com').length;
    const launched = await engine.api.request('POST', `/v1/campaigns/${c.id}/launch`);
    // The mailbox poller renews tokens on its own schedule: when it meets the refusal first, the launch itself is refused.
    if (launched.status !== 200) {
      expect(launched.status).toBe(422);
      expect(launched.body.problems.map((p: { code: string }) => p.code)).toEqual(['NO_SENDERS']);
    }
    const row = await eventually(
      async () => {
        const m = (await engine.api.request('GET', '/v1/mailboxes')).body.find((x: { id: string }) => x.id === box.id);
        return m.status === 'ERROR' ? m : undefined;
      },
      30_000,
      'the mailbox to show ERROR',
    );
    expect(row.lastError).toMatch(/refused to renew .*connect the mailbox again/);
    // In ERROR, it may be connected again; a connected Google mailbox that sends may not (409).
    expect((await visit(`${engine.url}/v1/oauth/microsoft/authorize?mailboxId=${box.id}`)).status).toBe(302);
    const sending = (await engine.api.request('GET', '/v1/mailboxes')).body.find((m: { email: string }) => m.email === GOOGLE_USER);
    expect(sending.status).toBe('ACTIVE');
    expect((await engine.api.request('GET', `/v1/oauth/google/authorize?mailboxId=${sending.id}`)).status).toBe(409);
    await new Promise((r) => setTimeout(r, 1000));
    expect(smtp.messages.filter((m) => m.envelope.to[0] === 'nobody@client.com').length).toBe(sentBefore);
    const check = await engine.api.request('GET', `/v1/campaigns/${c.id}/launch-check`);
    expect(check.body.problems.map((p: { code: string }) => p.code)).toContain('NO_SENDERS');
  });
});
