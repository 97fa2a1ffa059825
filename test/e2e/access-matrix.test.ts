/**
 * Who can reach which route, as a matrix: every protected route of the
 * manifest, with every kind of bad token, answers 401 (which routes are
 * public is held to docs/api.md by functions/src/manifest.test.ts).
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKey } from '@outbound/core/settings/index';
import { upsert } from '@outbound/core/user/index';
import { allRoutes } from '@outbound/functions/manifest';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';

let engine: TestEngine;
beforeAll(async () => {
  engine = await startTestEngine();
});
afterAll(() => engine?.stop());

const USER = { email: 'matrix@outbound.test', password: 'the first password' };
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** Every way a bearer token can be wrong, each made as an attacker (or time) would make it. */
async function badTokens(): Promise<Record<string, string | undefined>> {
  await upsert(engine.deps, USER);
  const api = new Api(engine.url);
  const good = await api.login(USER);
  const now = Math.floor(engine.wallClock.now() / 1000);
  const key = await signingKey(engine.deps);
  const expired = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(USER.email)
    .setIssuer('outbound')
    .setIssuedAt(now - 13 * 3600)
    .setExpirationTime(now - 3600)
    .sign(key);
  const [head, body, sig] = good.split('.') as [string, string, string];
  const tampered = `${head}.${b64({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), sub: 'admin@outbound.test' })}.${sig}`;
  const algNone = `${b64({ alg: 'none', typ: 'JWT' })}.${body}.`;
  const otherKey = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(USER.email)
    .setIssuer('outbound')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new Uint8Array(32).fill(1));
  // A token from before a password reset.
  engine.wallClock.advance(2000);
  await upsert(engine.deps, { ...USER, password: 'the second password' });
  return {
    missing: undefined,
    malformed: 'not-a-jwt',
    expired,
    tampered,
    'alg none': algNone,
    'another key': otherKey,
    'before a password reset': good,
  };
}

describe('the access matrix', () => {
  it('every protected route answers 401 { error } to every bad token, and nothing changes', { timeout: 60_000 }, async () => {
    const tokens = await badTokens();
    const protectedRoutes = allRoutes().filter((r) => !r.public);
    expect(protectedRoutes.length).toBeGreaterThan(30);
    const answers: string[] = [];
    for (const route of protectedRoutes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'domain' ? 'example.com' : name === 'provider' ? 'openai' : 'some-id',
      );
      for (const [kind, token] of Object.entries(tokens)) {
        const res = await new Api(engine.url).request(
          route.method,
          path,
          route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
          token ? { authorization: `Bearer ${token}` } : {},
        );
        if (res.status !== 401 || typeof res.body?.error !== 'string') answers.push(`${route.key} with ${kind}: ${res.status}`);
      }
    }
    expect(answers).toEqual([]);
    // The bad tokens changed nothing: no domain, campaign or mailbox was made.
    const api = new Api(engine.url);
    await api.login({ email: USER.email, password: 'the second password' });
    for (const list of ['/v1/domains', '/v1/campaigns', '/v1/mailboxes']) expect((await api.request('GET', list)).body).toEqual([]);
  });
});
