import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { RetryLaterError, UnauthorizedError } from '../errors.ts';
import { signingKey } from '../settings/index.ts';
import { loginGuardKey, userKey } from '../user/keys.ts';
import { decoyHash, verifyPassword } from '../user/password.ts';
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
  const guard = await deps.store.get(loginGuardKey(email));
  const lockedUntil = Number(guard?.lockedUntil ?? 0);
  if (lockedUntil > now) {
    throw new RetryLaterError('LOCKED', 'Too many failed sign-ins: this account is locked for a while. Try again later.', lockedUntil - now);
  }

  const user = await deps.store.get(userKey(email));
  const ok = user
    ? await verifyPassword(password, String(user.passwordHash))
    : (await verifyPassword(password, await decoyHash()), false);

  if (!ok) {
    // ADD is atomic, so concurrent failures are all counted; the one that
    // reaches the limit sets the lock and starts the count again.
    const after = await deps.store.update(loginGuardKey(email), { add: { failures: 1 } });
    if (Number(after.failures) >= LOCKOUT.failures) {
      await deps.store.update(loginGuardKey(email), { set: { lockedUntil: now + LOCKOUT.ms, failures: 0 } });
    }
    throw badCredentials();
  }

  if (guard) await deps.store.delete(loginGuardKey(email));
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(email)
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + TOKEN_TTL_SECONDS)
    .sign(await signingKey(deps));
  return { token };
});

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
    return { email: payload.sub };
  } catch (err) {
    throw new UnauthorizedError('The bearer token is not valid or has expired: sign in again.');
  }
}
