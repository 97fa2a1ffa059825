import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ManualClock } from '@outbound/core/ports/clock';
import { ADMIN, Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { runTs, waitForLine } from '../helpers/process.ts';

// Both instances read the same wall time, a second into a minute, so the
// test never straddles a window boundary by accident.
const minuteStart = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
const table = `rate-${randomUUID()}`;
let a: TestEngine;
let b: { api: Api; child: ChildProcess };
let dataDir: string;

beforeAll(async () => {
  // Two instances of one installation share the table and the master key (on AWS: KMS).
  dataDir = await mkdtemp(join(tmpdir(), 'outbound-rate-'));
  const shared = {
    dataDir,
    dynamoEndpoint: inject('dynamoEndpoint'),
    dynamoCredentials: inject('dynamoCredentials'),
    tableName: table,
    rateLimits: true,
  };
  a = await startTestEngine({ ...shared, wallClock: new ManualClock(minuteStart) });
  const child = runTs('test/helpers/engine-process.ts', [JSON.stringify({ ...shared, admin: ADMIN, wallTime: minuteStart })]);
  const [, url] = await waitForLine(child, /listening (\S+)/);
  b = { api: new Api(url!), child };
});
afterAll(async () => {
  b?.child.kill('SIGTERM');
  await a?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('per-minute rate limits, counted in the table', () => {
  it('allows 10 logins a minute per client address across two instances, then answers 429 with retryAfterMs and Retry-After', async () => {
    const results = [];
    for (let i = 0; i < 10; i++) results.push((await (i % 2 ? b.api : a.api).request('POST', '/v1/auth/login', ADMIN)).status);
    expect(results).toEqual(Array(10).fill(200));

    for (const api of [a.api, b.api]) {
      const res = await api.request('POST', '/v1/auth/login', ADMIN);
      expect(res.status).toBe(429);
      expect(res.body.retryAfterMs).toBeGreaterThan(0);
      expect(res.body.retryAfterMs).toBeLessThanOrEqual(59_000);
      expect(Number(res.headers.get('retry-after'))).toBe(Math.ceil(res.body.retryAfterMs / 1000));
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('keeps the login limit apart from the global one, which allows 100 a minute', async () => {
    const api = new Api(a.url);
    api.token = await loginToken();
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) statuses.push((await (i % 2 ? b.api : api).request('GET', '/v1/ai-keys', undefined, auth(api))).status);
    expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
    expect(statuses[100]).toBe(429);
  });

  it('opens again in the next window', async () => {
    a.wallClock.advance(60_000);
    expect((await a.api.request('POST', '/v1/auth/login', ADMIN)).status).toBe(200);
  });
});

/** A token signed by the shared secret, made without spending a login request. */
async function loginToken(): Promise<string> {
  const { SignJWT } = await import('jose');
  const { signingKey } = await import('@outbound/core/settings/index');
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(ADMIN.email)
    .setIssuer('outbound')
    .setIssuedAt(Math.floor(minuteStart / 1000))
    .setExpirationTime(Math.floor(minuteStart / 1000) + 3600)
    .sign(await signingKey(a.deps));
}

const auth = (api: Api) => ({ authorization: `Bearer ${api.token}` });
