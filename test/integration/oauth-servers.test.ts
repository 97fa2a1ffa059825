/**
 * The three servers the OAuth mailbox tests stand on, held to what they promise:
 * the OAuth server (authorize, token with PKCE, refresh, userinfo, introspection)
 * for both profiles, Dovecot's XOAUTH2 and OAUTHBEARER logins checked at that
 * server's introspection endpoint, and the SMTP server's XOAUTH2.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, waitForLog, type TestDovecot } from '../helpers/dovecot.ts';
import { startOAuthServer, type TestOAuthServer } from '../helpers/oauth-server.ts';
import { selfSignedCert, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const GOOGLE_USER = 'gina@gmail.test';
const MS_USER = 'mo@outlook.test';
const NAMELESS = 'anon@gmail.test';
const PW_USER = 'pat@password.test';
const PW = 'pat-password';
const REDIRECT = 'http://127.0.0.1:9/v1/oauth/callback';

let google: TestOAuthServer;
let microsoft: TestOAuthServer;
/** Offers both OAuth mechanisms (as Gmail does), asking the Google server. */
let gmail: TestDovecot;
/** Offers XOAUTH2 only (as Outlook does), asking the Microsoft server. */
let outlook: TestDovecot;
let smtp: TestSmtpServer;
let ca: string;

beforeAll(async () => {
  ca = (await selfSignedCert()).cert;
  [google, microsoft] = await Promise.all([
    startOAuthServer({ profile: 'google', users: { [GOOGLE_USER]: { name: 'Gina Google' }, [NAMELESS]: {} } }),
    startOAuthServer({ profile: 'microsoft', users: { [MS_USER]: { name: 'Mo Microsoft' } }, rotateRefreshTokens: true, expiresIn: 600 }),
  ]);
  [gmail, outlook, smtp] = await Promise.all([
    startDovecot({ [PW_USER]: PW }, { oauth2: { introspectionUrl: google.introspectUrl } }),
    startDovecot({}, { oauth2: { introspectionUrl: microsoft.introspectUrl, mechanisms: ['xoauth2'] } }),
    startSmtpServer({
      users: { [PW_USER]: PW },
      oauth: { verify: (user, token) => [google, microsoft].some((s) => s.accessTokenUser(token) === user) },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([gmail?.stop(), outlook?.stop(), smtp?.stop()]);
  await Promise.all([google?.stop(), microsoft?.stop()]);
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

function authorizeUrl(server: TestOAuthServer, params: Record<string, string | undefined>): string {
  const url = new URL(server.authUrl);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

const goodAuthorize = (server: TestOAuthServer, challenge: string, state = 'st-1') => ({
  response_type: 'code',
  client_id: server.clientId,
  redirect_uri: REDIRECT,
  scope: 'openid email profile https://mail.test/',
  state,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  access_type: 'offline',
  prompt: 'consent',
});

/** GET /authorize and read the redirect back: the code and the echoed state. */
async function authorize(server: TestOAuthServer, challenge: string, state = 'st-1') {
  const res = await fetch(authorizeUrl(server, goodAuthorize(server, challenge, state)), { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
}

async function post(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams(form), headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const exchange = (server: TestOAuthServer, code: string, verifier: string, extra: Record<string, string> = {}) =>
  post(server.tokenUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: server.clientId,
    client_secret: server.clientSecret,
    code_verifier: verifier,
    ...extra,
  });

const refresh = (server: TestOAuthServer, refreshToken: string) =>
  post(server.tokenUrl, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: server.clientId,
    client_secret: server.clientSecret,
  });

/** The whole consent: a fresh access and refresh token for `user`. */
async function tokensFor(server: TestOAuthServer, user: string) {
  server.signInAs(user);
  const { verifier, challenge } = pkce();
  const { code } = await authorize(server, challenge);
  const res = await exchange(server, code, verifier);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { accessToken: String(res.body.access_token), refreshToken: String(res.body.refresh_token) };
}

async function userinfo(server: TestOAuthServer, accessToken: string) {
  const res = await fetch(server.userinfoUrl, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, wwwAuthenticate: res.headers.get('www-authenticate') };
}

describe.each(['google', 'microsoft'] as const)('the OAuth server as %s', (profile) => {
  const server = () => (profile === 'google' ? google : microsoft);
  const user = () => (profile === 'google' ? GOOGLE_USER : MS_USER);

  it('authorize refuses a bad request with 400 and consents at once to a good one, echoing the state', async () => {
    const s = server();
    s.signInAs(user());
    const { challenge } = pkce();
    const good = goodAuthorize(s, challenge);
    for (const bad of [
      { response_type: undefined },
      { response_type: 'token' },
      { client_id: undefined },
      { client_id: 'someone-else' },
      { redirect_uri: undefined },
      { redirect_uri: 'not a url' },
      { scope: undefined },
      { state: undefined },
      { code_challenge: undefined },
      { code_challenge: 'short' },
      { code_challenge_method: undefined },
      { code_challenge_method: 'plain' },
    ]) {
      const res = await fetch(authorizeUrl(s, { ...good, ...bad }), { redirect: 'manual' });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(await res.text()).toMatch(/bad authorization request/);
    }
    const state = 'a.b~c d+/=é&x=1';
    const { code, state: echoed } = await authorize(s, challenge, state);
    expect(echoed).toBe(state);
    expect(code).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(s.authorizeRequests.at(-1)).toMatchObject({ access_type: 'offline', prompt: 'consent', scope: good.scope, state });
  });

  it('token checks the PKCE verifier, the client, the redirect_uri and that a code is used once', async () => {
    const s = server();
    s.signInAs(user());
    const { verifier, challenge } = pkce();
    const { code } = await authorize(s, challenge);
    const before = s.tokenRequests.authorization_code ?? 0;

    // A wrong verifier, a wrong redirect_uri and a wrong secret are refused (and do not spend the code).
    expect(await exchange(s, code, pkce().verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange(s, code, 'x')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange(s, code, verifier, { redirect_uri: `${REDIRECT}/other` })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await exchange(s, code, verifier, { client_secret: 'wrong' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(await exchange(s, 'no-such-code', verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const ok = await exchange(s, code, verifier);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: profile === 'google' ? 3600 : 600,
      scope: 'openid email profile https://mail.test/',
    });
    expect(ok.body.access_token).toEqual(expect.any(String));
    expect(ok.body.refresh_token).toEqual(expect.any(String));
    const idClaims = JSON.parse(Buffer.from(String(ok.body.id_token).split('.')[1]!, 'base64url').toString('utf8'));
    expect(idClaims).toMatchObject({ email: user(), aud: s.clientId });
    expect(s.accessTokenUser(String(ok.body.access_token))).toBe(user());
    expect(s.tokenRequests.authorization_code).toBe(before + 6);

    // Used again: refused, and what it gave is revoked (RFC 6749 §4.1.2).
    expect(await exchange(s, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(s.accessTokenUser(String(ok.body.access_token))).toBeUndefined();
    expect(await refresh(s, String(ok.body.refresh_token))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // Client authentication with HTTP Basic works as well as in the body.
    const second = pkce();
    const { code: code2 } = await authorize(s, second.challenge);
    const basic = Buffer.from(`${encodeURIComponent(s.clientId)}:${encodeURIComponent(s.clientSecret)}`).toString('base64');
    const viaBasic = await post(
      s.tokenUrl,
      { grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT, code_verifier: second.verifier },
      { authorization: `Basic ${basic}` },
    );
    expect(viaBasic.status, JSON.stringify(viaBasic.body)).toBe(200);
    const badBasic = Buffer.from(`${s.clientId}:nope`).toString('base64');
    const refused = await post(
      s.tokenUrl,
      { grant_type: 'refresh_token', refresh_token: String(viaBasic.body.refresh_token) },
      { authorization: `Basic ${badBasic}` },
    );
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('userinfo answers the profile in the provider shape, and 401 for an unknown or expired token', async () => {
    const s = server();
    const { accessToken } = await tokensFor(s, user());
    const me = await userinfo(s, accessToken);
    expect(me.status).toBe(200);
    if (profile === 'google') {
      expect(me.body).toEqual({
        sub: expect.stringMatching(/^\d{21}$/),
        email: GOOGLE_USER,
        email_verified: true,
        name: 'Gina Google',
        given_name: 'Gina',
      });
      const { accessToken: anon } = await tokensFor(s, NAMELESS);
      expect((await userinfo(s, anon)).body).toEqual({ sub: expect.any(String), email: NAMELESS, email_verified: true });
    } else {
      expect(me.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        displayName: 'Mo Microsoft',
        mail: MS_USER,
        userPrincipalName: MS_USER,
      });
    }
    const unknown = await userinfo(s, 'not-a-token');
    expect(unknown.status).toBe(401);
    expect(unknown.wwwAuthenticate).toContain('invalid_token');

    s.expireAccessTokens();
    expect((await userinfo(s, accessToken)).status).toBe(401);
    expect(s.accessTokenUser(accessToken)).toBeUndefined();
  });

  it('refresh hands out a new access token until the refresh token is revoked', async () => {
    const s = server();
    const { accessToken, refreshToken } = await tokensFor(s, user());
    s.expireAccessTokens();
    expect(s.accessTokenUser(accessToken)).toBeUndefined();
    const before = s.tokenRequests.refresh_token ?? 0;

    const renewed = await refresh(s, refreshToken);
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    expect(renewed.body.access_token).not.toBe(accessToken);
    expect(s.accessTokenUser(String(renewed.body.access_token))).toBe(user());
    expect((await userinfo(s, String(renewed.body.access_token))).status).toBe(200);
    // Microsoft rotates (this one was started so); Google keeps the refresh token.
    if (profile === 'microsoft') {
      expect(renewed.body.refresh_token).toEqual(expect.any(String));
      expect(renewed.body.refresh_token).not.toBe(refreshToken);
      expect(s.issuedRefreshTokens()).toContain(renewed.body.refresh_token);
    } else {
      expect(renewed.body.refresh_token).toBeUndefined();
    }

    expect(s.revoke(refreshToken)).toBe(true);
    expect(s.revoke('never-issued')).toBe(false);
    expect(await refresh(s, refreshToken)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await refresh(s, 'never-issued')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(s.tokenRequests.refresh_token).toBe(before + 3);

    // revokeAll ends every grant.
    const other = await tokensFor(s, user());
    expect((await refresh(s, other.refreshToken)).status).toBe(200);
    s.revokeAll();
    expect(await refresh(s, other.refreshToken)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await post(s.tokenUrl, { grant_type: 'password', client_id: s.clientId, client_secret: s.clientSecret })).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
  });

  it('introspection says whether a token is active, and whose', async () => {
    const s = server();
    const { accessToken } = await tokensFor(s, user());
    const active = await post(s.introspectUrl, { token: accessToken });
    expect(active.body).toMatchObject({
      active: true,
      email: user(),
      username: user(),
      sub: expect.any(String),
      exp: expect.any(Number),
      scope: expect.any(String),
    });
    expect(Number(active.body.exp) * 1000).toBeGreaterThan(Date.now());
    expect((await post(s.introspectUrl, { token: 'nope' })).body).toEqual({ active: false });
    s.expireAccessTokens();
    expect((await post(s.introspectUrl, { token: accessToken })).body).toEqual({ active: false });
  });
});

describe('Dovecot with OAuth logins', { timeout: 60_000 }, () => {
  function imap(dovecot: TestDovecot, auth: { user: string; accessToken?: string; pass?: string }) {
    const client = new ImapFlow({
      host: dovecot.host,
      port: dovecot.imapPort,
      secure: false,
      auth: auth as { user: string; accessToken: string },
      logger: false,
      disableAutoIdle: true,
      tls: { ca: [ca] },
    });
    client.on('error', () => {});
    return client;
  }

  async function inbox(dovecot: TestDovecot, auth: { user: string; accessToken?: string; pass?: string }) {
    const client = imap(dovecot, auth);
    try {
      await client.connect();
      const list = (await client.list()).map((m) => m.path);
      const status = await client.status('INBOX', { messages: true });
      await client.logout();
      return { list, messages: status ? status.messages : undefined };
    } finally {
      if (!client.isClosed) client.close();
    }
  }

  const message = (to: string, id: string) =>
    [
      `From: a@sender.test`,
      `To: ${to}`,
      `Subject: hello ${id}`,
      `Message-ID: <${id}@sender.test>`,
      `Date: ${new Date().toUTCString()}`,
      '',
      'Hello.',
      '',
    ].join('\r\n');

  it('imapflow signs in with XOAUTH2 (Outlook-like) and OAUTHBEARER (Gmail-like) on a token the OAuth server issued, and lists INBOX', async () => {
    await outlook.deliver(MS_USER, message(MS_USER, 'ms-1'));
    const ms = await tokensFor(microsoft, MS_USER);
    expect(await inbox(outlook, { user: MS_USER, accessToken: ms.accessToken })).toEqual({
      list: expect.arrayContaining(['INBOX', 'Junk', 'Sent']),
      messages: 1,
    });
    // Dovecot's log process writes the line after imapflow has its answer: wait for it.
    await waitForLog(outlook, new RegExp(`Login: user=<${MS_USER}>, method=XOAUTH2`));

    await gmail.deliver(GOOGLE_USER, message(GOOGLE_USER, 'g-1'));
    const g = await tokensFor(google, GOOGLE_USER);
    expect(await inbox(gmail, { user: GOOGLE_USER, accessToken: g.accessToken })).toEqual({
      list: expect.arrayContaining(['INBOX']),
      messages: 1,
    });
    // imapflow prefers OAUTHBEARER when it is offered.
    await waitForLog(gmail, new RegExp(`Login: user=<${GOOGLE_USER}>, method=OAUTHBEARER`));

    // Passwords still work beside OAuth.
    expect((await inbox(gmail, { user: PW_USER, pass: PW })).list).toContain('INBOX');
  });

  it("refuses an unknown token, another user's token and an expired one, and takes the refreshed one", async () => {
    const { accessToken, refreshToken } = await tokensFor(microsoft, MS_USER);
    const failure = (auth: { user: string; accessToken: string }) =>
      inbox(outlook, auth).then(
        () => 'signed in',
        (err: { authenticationFailed?: boolean }) => err.authenticationFailed,
      );
    expect(await failure({ user: MS_USER, accessToken: 'not-a-token' })).toBe(true);
    expect(await failure({ user: 'someone@outlook.test', accessToken })).toBe(true);
    microsoft.expireAccessTokens();
    expect(await failure({ user: MS_USER, accessToken })).toBe(true);
    // Why each was refused, as Dovecot's auth process logs it (after the client has been answered).
    await waitForLog(outlook, /oauth2 failed: Introspection failed: Provided token is not valid/);
    await waitForLog(outlook, /Username 'someone@outlook.test' did not match 'mo@outlook.test'/);

    const renewed = await refresh(microsoft, refreshToken);
    expect((await inbox(outlook, { user: MS_USER, accessToken: String(renewed.body.access_token) })).list).toContain('INBOX');
    // Beside OAuth, a wrong password is still refused.
    const pw = await inbox(gmail, { user: PW_USER, pass: 'wrong' }).then(
      () => 'signed in',
      (err: { authenticationFailed?: boolean }) => err.authenticationFailed,
    );
    expect(pw).toBe(true);
  });
});

describe('the SMTP server with XOAUTH2', { timeout: 30_000 }, () => {
  const transport = (auth: Record<string, unknown>, port = smtp.port) =>
    createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      tls: { ca: [ca] },
      auth: auth as { user: string; pass: string },
      logger: false,
    });

  it('nodemailer sends with an access token the OAuth server issued, and a bad token is refused', async () => {
    const { accessToken } = await tokensFor(google, GOOGLE_USER);
    const t = transport({ type: 'OAuth2', user: GOOGLE_USER, accessToken });
    try {
      await t.sendMail({ from: GOOGLE_USER, to: 'lead@client.test', subject: 'over xoauth2', text: 'Hi.' });
    } finally {
      t.close();
    }
    const [sent] = await smtp.waitFor(1);
    expect(sent!.envelope).toEqual({ from: GOOGLE_USER, to: ['lead@client.test'] });
    expect(smtp.logins.at(-1)).toEqual({ user: GOOGLE_USER, ok: true, secure: true, method: 'XOAUTH2' });

    for (const [user, token] of [
      [GOOGLE_USER, 'not-a-token'],
      [MS_USER, accessToken],
    ] as const) {
      const bad = transport({ type: 'OAuth2', user, accessToken: token });
      try {
        await expect(bad.sendMail({ from: user, to: 'lead@client.test', subject: 'x', text: 'x' })).rejects.toMatchObject({
          code: 'EAUTH',
        });
      } finally {
        bad.close();
      }
      expect(smtp.logins.at(-1)).toEqual({ user, ok: false, secure: true, method: 'XOAUTH2' });
    }
    expect(smtp.messages).toHaveLength(1);
  });

  it('keeps password logins as they were, their method readable but outside the compared shape', async () => {
    const t = transport({ user: PW_USER, pass: PW });
    try {
      await t.verify();
    } finally {
      t.close();
    }
    const login = smtp.logins.at(-1)!;
    expect(login).toEqual({ user: PW_USER, ok: true, secure: true });
    expect(login.method).toBe('PLAIN');
    expect(login).toMatchObject({ method: 'PLAIN' });

    const viaLogin = transport({ user: PW_USER, pass: PW, method: 'LOGIN' });
    try {
      await viaLogin.verify();
    } finally {
      viaLogin.close();
    }
    expect(smtp.logins.at(-1)!.method).toBe('LOGIN');
  });

  it('a server started without the oauth option does not offer XOAUTH2', async () => {
    const plain = await startSmtpServer({ users: { [PW_USER]: PW } });
    const { accessToken } = await tokensFor(google, GOOGLE_USER);
    const t = transport({ type: 'OAuth2', user: GOOGLE_USER, accessToken }, plain.port);
    try {
      await expect(t.verify()).rejects.toMatchObject({ code: 'EAUTH', responseCode: 504 });
      expect(plain.logins).toEqual([]);
    } finally {
      t.close();
      await plain.stop();
    }
  });
});
