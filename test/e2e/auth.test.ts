import { request } from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCKOUT } from '@outbound/core/auth/index';
import { upsert } from '@outbound/core/user/index';
import { ADMIN, Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';

let engine: TestEngine;
beforeAll(async () => {
  engine = await startTestEngine();
});
afterAll(() => engine?.stop());

const fresh = () => new Api(engine.url);

describe('POST /v1/auth/login', () => {
  it('answers a token that opens protected routes', async () => {
    const api = fresh();
    const res = await api.request('POST', '/v1/auth/login', ADMIN);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['token']);
    api.token = res.body.token;
    expect((await api.request('GET', '/v1/ai-keys')).status).toBe(200);
  });

  it('accepts the email in any case and with spaces around it', async () => {
    const res = await fresh().request('POST', '/v1/auth/login', { email: '  Admin@Outbound.TEST ', password: ADMIN.password });
    expect(res.status).toBe(200);
  });

  it('answers the same 401 for a wrong password and an unknown account', async () => {
    const wrong = await fresh().request('POST', '/v1/auth/login', { email: ADMIN.email, password: 'nope' });
    const unknown = await fresh().request('POST', '/v1/auth/login', { email: 'ghost@outbound.test', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body.error).toMatch(/email or password/);
    // reset the failure count for the other tests
    await fresh().login();
  });

  it('names the field that is wrong with 422', async () => {
    const res = await fresh().request('POST', '/v1/auth/login', { email: 'not-an-email', password: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^email: /);
    const missing = await fresh().request('POST', '/v1/auth/login', { email: ADMIN.email });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatch(/password/);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const res = await fresh().request('POST', '/v1/auth/login', '{"email": ', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'The request body is not valid JSON.' });
  });
});

describe('login takes JSON only', () => {
  it('answers 415 to any other content type, and such a post is no attempt: it neither locks the account nor spends the rate limit', async () => {
    // Rate limits on, as on AWS: a web page's text/plain posts must not spend the owner's logins either.
    const limited = await startTestEngine({ rateLimits: true });
    try {
      const api = new Api(limited.url);
      // What a form or fetch on any web page can send without asking: no CORS preflight for these types.
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'text/plain; charset=utf-8',
      ]) {
        for (let i = 0; i < 3; i++) {
          const res = await api.request('POST', '/v1/auth/login', JSON.stringify({ email: ADMIN.email, password: `guess ${i}` }), {
            'content-type': type,
          });
          expect(res.status, type).toBe(415);
          expect(res.body.error).toMatch(/JSON/);
        }
      }
      const none = await api.request('POST', '/v1/auth/login', JSON.stringify(ADMIN), { 'content-type': '' });
      expect(none.status).toBe(415);
      // Twelve refused posts later, the owner signs in at once: not locked, not limited.
      expect((await api.request('POST', '/v1/auth/login', ADMIN)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe('lockout (5 failures, 15 minutes)', () => {
  it('locks after five failures, answers the sixth with 429 and retryAfterMs whatever the password, and opens after 15 minutes', async () => {
    const email = 'locked@outbound.test';
    await upsert(engine.deps, { email, password: 'the right password' });
    for (let i = 0; i < LOCKOUT.failures; i++) {
      const res = await fresh().request('POST', '/v1/auth/login', { email, password: `wrong ${i}` });
      expect(res.status).toBe(401);
    }
    const sixth = await fresh().request('POST', '/v1/auth/login', { email, password: 'the right password' });
    expect(sixth.status).toBe(429);
    expect(sixth.body.retryAfterMs).toBeGreaterThan(14 * 60_000);
    expect(sixth.body.retryAfterMs).toBeLessThanOrEqual(15 * 60_000);
    expect(Number(sixth.headers.get('retry-after'))).toBe(Math.ceil(sixth.body.retryAfterMs / 1000));

    engine.wallClock.advance(LOCKOUT.ms - 1000);
    expect((await fresh().request('POST', '/v1/auth/login', { email, password: 'the right password' })).status).toBe(429);
    engine.wallClock.advance(1001);
    expect((await fresh().request('POST', '/v1/auth/login', { email, password: 'the right password' })).status).toBe(200);
  });

  it('locks unknown addresses the same way, so a 429 does not reveal that an account exists', async () => {
    const email = 'nobody@outbound.test';
    for (let i = 0; i < LOCKOUT.failures; i++) {
      expect((await fresh().request('POST', '/v1/auth/login', { email, password: 'x' })).status).toBe(401);
    }
    const sixth = await fresh().request('POST', '/v1/auth/login', { email, password: 'x' });
    expect(sixth.status).toBe(429);
    expect(Object.keys(sixth.body).sort()).toEqual(['error', 'retryAfterMs']);
  });

  it('counts only consecutive failures: a success starts the count again', async () => {
    const email = 'streak@outbound.test';
    await upsert(engine.deps, { email, password: 'the right password' });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < LOCKOUT.failures - 1; i++) {
        expect((await fresh().request('POST', '/v1/auth/login', { email, password: 'bad' })).status).toBe(401);
      }
      expect((await fresh().request('POST', '/v1/auth/login', { email, password: 'the right password' })).status).toBe(200);
    }
  });
});

describe('lockout under concurrent guesses, and password resets', () => {
  it('checks at most five passwords however many guesses race, and the right one is locked out with the rest', async () => {
    const email = 'raced@outbound.test';
    await upsert(engine.deps, { email, password: 'the right password' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fresh().request('POST', '/v1/auth/login', { email, password: `guess ${i}` })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(LOCKOUT.failures);
    expect(statuses.filter((s) => s !== 401).every((s) => s === 429)).toBe(true);
    expect((await fresh().request('POST', '/v1/auth/login', { email, password: 'the right password' })).status).toBe(429);
  });

  it('a password reset lifts the lockout and ends every token issued before it', async () => {
    const email = 'reset@outbound.test';
    await upsert(engine.deps, { email, password: 'the first password' });
    const before = fresh();
    await before.login({ email, password: 'the first password' });
    expect((await before.request('GET', '/v1/campaigns')).status).toBe(200);
    for (let i = 0; i < LOCKOUT.failures; i++) await fresh().request('POST', '/v1/auth/login', { email, password: 'wrong' });
    expect((await fresh().request('POST', '/v1/auth/login', { email, password: 'the first password' })).status).toBe(429);

    engine.wallClock.advance(2000);
    await upsert(engine.deps, { email, password: 'the second password' });
    expect((await before.request('GET', '/v1/campaigns')).status).toBe(401);
    const after = fresh();
    await after.login({ email, password: 'the second password' });
    expect((await after.request('GET', '/v1/campaigns')).status).toBe(200);
  });
});

describe('bearer check on protected routes', () => {
  it('answers 401 with { error } when the token is missing, malformed, tampered or expired', async () => {
    const api = fresh();
    const token = await api.login();
    const ask = (authorization?: string) => fresh().request('GET', '/v1/ai-keys', undefined, authorization ? { authorization } : {});

    const missing = await ask();
    expect(missing.status).toBe(401);
    expect(typeof missing.body.error).toBe('string');
    expect((await ask('Bearer')).status).toBe(401);
    expect((await ask('Basic abc')).status).toBe(401);
    expect((await ask(`Bearer ${token}x`)).status).toBe(401);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: 'someone@else.test' })).toString('base64url');
    expect((await ask(`Bearer ${h}.${forged}.${s}`)).status).toBe(401);
    const otherKey = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(ADMIN.email)
      .setIssuer('outbound')
      .setExpirationTime('1h')
      .sign(new Uint8Array(32));
    expect((await ask(`Bearer ${otherKey}`)).status).toBe(401);
    expect((await ask(`Bearer ${token}`)).status).toBe(200);

    engine.wallClock.advance(12 * 3600_000 + 1000);
    const expired = await ask(`Bearer ${token}`);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatch(/expired/);
  });
});

describe('requests addressed to another name (DNS rebinding)', () => {
  /** A raw request with the Host header a browser on an attacker's page would send to 127.0.0.1. */
  const asHost = (host: string, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(engine.url);
      const req = request({ host: url.hostname, port: Number(url.port), method: 'GET', path, headers: { host } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it("are refused with 403 before any route runs; the engine's own address and localhost are answered", async () => {
    const port = new URL(engine.url).port;
    const rebound = await asHost(`rebind.attacker.example:${port}`, '/v1/openapi.json');
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error).toMatch(/IP address, localhost or its PUBLIC_BASE_URL host/);
    expect((await asHost(`127.0.0.1:${port}`, '/v1/openapi.json')).status).toBe(200);
    expect((await asHost(`localhost:${port}`, '/v1/openapi.json')).status).toBe(200);
  });
});

describe('routes outside the API', () => {
  it('answers unknown routes with 404 { error }, with or without a token', async () => {
    const res = await fresh().request('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/GET \/v1\/nothing-here/);
    const wrongMethod = await fresh().request('DELETE', '/v1/auth/login');
    expect(wrongMethod.status).toBe(404);
  });

  it('answers GET /v1/openapi.json without a token: OpenAPI 3.1, version 1.0.0, with this installation as its server', async () => {
    const res = await fresh().request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' }, servers: [{ url: engine.deps.config.publicBaseUrl }] });
    expect(Object.keys(res.body.paths)).toContain('/v1/replies');
  });

  it('answers PUT /v1/instance-settings with 410', async () => {
    const res = await fresh().request('PUT', '/v1/instance-settings', { mailingAddress: 'x' });
    expect(res.status).toBe(410);
    expect(res.body.error).toMatch(/removed/);
  });
});

describe('inputs that must never answer 5xx', () => {
  it('a malformed percent-escape in a path, and ids far longer than any id, get a 404 or 422 with a sentence', async () => {
    const api = fresh();
    await api.login();
    for (const path of [
      '/v1/campaigns/%E0%A4%A',
      '/v1/campaigns/%',
      `/v1/campaigns/${'x'.repeat(3000)}`,
      `/v1/mailboxes/${'é'.repeat(400)}`,
    ]) {
      const res = await api.request('GET', path.startsWith('/v1/mailboxes') ? '/v1/mailboxes' : path);
      const patched = path.startsWith('/v1/mailboxes') ? await api.request('PATCH', path, { dailyCap: 5 }) : res;
      expect(patched.status, path.slice(0, 40)).toBe(404);
      expect(typeof patched.body.error).toBe('string');
    }
    const long = 'c'.repeat(3000);
    for (const [method, path, body] of [
      ['POST', '/v1/leads/webhook', { campaignId: long, email: 'a@b.example' }],
      ['POST', '/v1/leads', { campaignId: long, email: 'a@b.example' }],
      ['GET', `/v1/leads?campaignId=${long}`, undefined],
      ['POST', '/v1/mailboxes', { email: 'a@b.example', domainId: long }],
    ] as const) {
      const res = await (path === '/v1/leads/webhook' ? fresh() : api).request(method, path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.error).toMatch(/at most 200 characters/);
    }
  });
});

describe('logs', () => {
  it('writes one JSON line per request with method, route, status, ms and request id, and never a password or token', async () => {
    const api = fresh();
    const before = engine.logs.length;
    const token = await api.login();
    const res = await api.request('GET', '/v1/ai-keys');
    const lines = engine.logs.slice(before).filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ method: 'POST', route: 'POST /v1/auth/login', status: 200 });
    expect(lines[1]).toMatchObject({ method: 'GET', route: 'GET /v1/ai-keys', status: 200, requestId: res.headers.get('x-request-id') });
    expect(typeof lines[1]!.ms).toBe('number');
    const all = JSON.stringify(engine.logs);
    expect(all).not.toContain(ADMIN.password);
    expect(all).not.toContain(token);
  });
});
