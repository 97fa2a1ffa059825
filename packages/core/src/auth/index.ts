import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, RetryLaterError, UnauthorizedError } from '../errors.ts';
import { signingKey } from '../settings/index.ts';
import { loginGuardKey, userKey } from '../user/keys.ts';
import { decoyHash, verifyPassword } from '../user/password.ts';
import { fromItem as userFromItem, loginGuardFromItem } from '../user/entity.ts';
import { Email, verb } from '../validate.ts';

/** docs/api.md, Authentication: 5 consecutive failures lock the account for 15 minutes; tokens live 12 hours. */
export const LOCKOUT = { failures: 5, ms: 15 * 60_000 } as const;
export const TOKEN_TTL_SECONDS = 12 * 3600;
const ISSUER = 'outbound';

export const LoginInput = z.object({
  email: Email,
  password: z.string({ error: 'must be a string' }).min(1, { error: 'is required' }).max(1024),
});

type AuthDeps = Pick<Deps, 'store' | 'keys' | 'wallClock'>;

/** The one 401 for a wrong password and an unknown account alike (no user enumeration: docs/api.md, Authentication). */
const badCredentials = () => new UnauthorizedError('The email or password is not right.');

/**
 * Signs in an engine user and returns a bearer token. The lockout is kept by
 * address whether or not the account exists, so neither the 401 nor the 429
 * tells an attacker which accounts are real.
 */
export const login = verb(LoginInput, async (deps: AuthDeps, { email, password }) => {
  const now = deps.wallClock.now();
  // The attempt is counted before the password is checked, in one conditional write: concurrent
  // guesses each take a place in the count, so no more than LOCKOUT.failures are ever checked.
  const attempt = await countAttempt(deps, email, now);
  if (attempt.locked) {
    throw new RetryLaterError('LOCKED', 'Too many failed sign-ins: this account is locked for a while. Try again later.', attempt.retryAfterMs);
  }

  const stored = await deps.store.get(userKey(email));
  const user = stored && userFromItem(stored);
  const ok = user
    ? await verifyPassword(password, user.passwordHash)
    : (await verifyPassword(password, await decoyHash()), false);

  if (!ok) {
    // The failure that reaches the limit locks the account and starts the count again.
    if (attempt.count >= LOCKOUT.failures) {
      await deps.store.update(loginGuardKey(email), { set: { lockedUntil: now + LOCKOUT.ms, attempts: 0, expiresAt: expiry(now + LOCKOUT.ms) } });
    }
    throw badCredentials();
  }

  await deps.store.delete(loginGuardKey(email));
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(email)
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + TOKEN_TTL_SECONDS)
    .sign(await signingKey(deps));
  return { token };
});

/** A failed streak is forgotten a day after its last attempt (the table's TTL removes the item). */
const STREAK_TTL_MS = 24 * 3_600_000;
const expiry = (ms: number) => Math.ceil((ms + STREAK_TTL_MS) / 1000);

/**
 * Takes a place in the address's streak of attempts (atomic ADD), unless the
 * account is locked. The lock is kept by address whether or not the account
 * exists, so neither the 401 nor the 429 tells an attacker which are real.
 */
async function countAttempt(deps: AuthDeps, email: string, now: number): Promise<{ locked: false; count: number } | { locked: true; retryAfterMs: number }> {
  try {
    const after = await deps.store.update(loginGuardKey(email), {
      add: { attempts: 1 },
      set: { expiresAt: expiry(now) },
      if: { or: [{ attr: 'lockedUntil', exists: false }, { attr: 'lockedUntil', op: '<=', value: now }] },
    });
    const count = loginGuardFromItem(after).attempts;
    // Places beyond the limit were taken by guesses racing the one that locks: they are refused unchecked.
    if (count > LOCKOUT.failures) return { locked: true, retryAfterMs: LOCKOUT.ms };
    return { locked: false, count };
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    const guard = await deps.store.get(loginGuardKey(email));
    const lockedUntil = (guard && loginGuardFromItem(guard).lockedUntil) ?? now;
    return { locked: true, retryAfterMs: Math.max(1000, lockedUntil - now) };
  }
}

/** The signed-in user a bearer token names; UnauthorizedError for anything missing, malformed, expired or tampered. */
export async function authenticate(deps: AuthDeps, authorization: string | undefined): Promise<{ email: string }> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new UnauthorizedError();
  try {
    const { payload } = await jwtVerify(match[1]!, await signingKey(deps), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      currentDate: new Date(deps.wallClock.now()),
    });
    if (!payload.sub) throw new Error('token without subject');
    // The user must still exist, and the token must not be older than its last password reset.
    const stored = await deps.store.get(userKey(payload.sub));
    if (!stored) throw new Error('token of a user that no longer exists');
    const user = userFromItem(stored);
    if (user.passwordChangedAt !== undefined && (payload.iat ?? 0) < user.passwordChangedAt) throw new Error('token from before a password reset');
    return { email: payload.sub };
  } catch (err) {
    throw new UnauthorizedError('The bearer token is not valid or has expired: sign in again.');
  }
}
