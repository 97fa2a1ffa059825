/**
 * Sign-in guards on the unit tier: the lockout is per address and client, so a
 * stranger cannot lock the owner out from elsewhere; a slower brake per address
 * holds guesses spread over many clients, never the owner's own; a reset ends
 * tokens issued before it to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import { RetryLaterError, UnauthorizedError } from '../errors.ts';
import { unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { upsert } from '../user/index.ts';
import { authenticate, BRAKE, LOCKOUT, login } from './index.ts';

const EMAIL = 'owner@outbound.test';
const RIGHT = 'the right password';

async function attempt(deps: UnitDeps, ip: string, password: string): Promise<'ok' | 401 | 429> {
  try {
    await login(deps, { email: EMAIL, password }, { ip });
    return 'ok';
  } catch (err) {
    if (err instanceof UnauthorizedError) return 401;
    if (err instanceof RetryLaterError) return 429;
    throw err;
  }
}

describe('sign-in guards', () => {
  it('five bad guesses lock out the client that made them, not the owner signing in from elsewhere', async () => {
    const deps = unitDeps();
    await upsert(deps, { email: EMAIL, password: RIGHT });
    for (let i = 0; i < LOCKOUT.failures; i++) expect(await attempt(deps, '203.0.113.9', `guess ${i}`)).toBe(401);
    expect(await attempt(deps, '203.0.113.9', RIGHT)).toBe(429);
    expect(await attempt(deps, '198.51.100.7', RIGHT)).toBe('ok');
    deps.wallClock.advance(LOCKOUT.ms + 1);
    expect(await attempt(deps, '203.0.113.9', RIGHT)).toBe('ok');
  });

  it("guesses spread over many clients brake the address for unknown clients, one check per interval; the owner's client is never braked", async () => {
    const deps = unitDeps();
    await upsert(deps, { email: EMAIL, password: RIGHT });
    expect(await attempt(deps, '198.51.100.7', RIGHT)).toBe('ok'); // the owner's office
    for (let i = 0; i < BRAKE.failures; i++) expect(await attempt(deps, `203.0.113.${i}`, 'guess')).toBe(401);
    // Braked: one unknown client is checked, the next waits.
    expect(await attempt(deps, '192.0.2.1', 'guess')).toBe(401);
    expect(await attempt(deps, '192.0.2.2', 'guess')).toBe(429);
    expect(await attempt(deps, '198.51.100.7', RIGHT)).toBe('ok');
    deps.wallClock.advance(BRAKE.everyMs);
    expect(await attempt(deps, '192.0.2.3', RIGHT)).toBe('ok');
  });

  it('a password reset ends a token issued in the same second but before it', async () => {
    const deps = unitDeps();
    deps.wallClock.set(Date.UTC(2026, 10, 25, 12, 0, 0, 100));
    await upsert(deps, { email: EMAIL, password: RIGHT });
    const { token } = await login(deps, { email: EMAIL, password: RIGHT }, { ip: '198.51.100.7' });
    expect(await authenticate(deps, `Bearer ${token}`)).toEqual({ email: EMAIL });
    deps.wallClock.advance(400); // still 12:00:00
    await upsert(deps, { email: EMAIL, password: 'a new long password' });
    await expect(authenticate(deps, `Bearer ${token}`)).rejects.toBeInstanceOf(UnauthorizedError);
    deps.wallClock.advance(1);
    const { token: fresh } = await login(deps, { email: EMAIL, password: 'a new long password' }, { ip: '198.51.100.7' });
    expect(await authenticate(deps, `Bearer ${fresh}`)).toEqual({ email: EMAIL });
  });
});
