import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, RetryLaterError, UnauthorizedError } from '../errors.ts';
import { signingKey } from '../settings/index.ts';
import { loginClientKey, loginGuardKey, userKey } from '../user/keys.ts';
import { decoyHash, verifyPassword } from '../user/password.ts';
import { changedAtMs, fromItem as userFromItem, loginGuardFromItem } from '../user/entity.ts';
import { Email, parse } from '../validate.ts';

/**
 * docs/api.md, Authentication: 5 failures in a row from one client lock that client out of that
 * address for 15 minutes; tokens live 12 hours. The lock is per address and client together, so a
 * stranger who knows the owner's address locks out only themselves.
 */
export const LOCKOUT = { failures: 5, ms: 15 * 60_000 } as const;
/**
 * The slower brake per address, against guesses spread over many clients: past `failures` failures
 * of the address (from any client, forgotten a day after the last), a client that has never signed
 * in to it has its password checked at most once per `everyMs` across all such clients. Clients that
 * signed in before (the owner's) are never braked.
 */
export const BRAKE = { failures: 20, everyMs: 30_000 } as const;
export const TOKEN_TTL_SECONDS = 12 * 3600;
const ISSUER = 'outbound';

export const LoginInput = z.object({
  email: Email,
  password: z.string({ error: 'must be a string' }).min(1, { error: 'is required' }).max(1024),
});
type LoginInput = z.infer<typeof LoginInput>;

type AuthDeps = Pick<Deps, 'store' | 'keys' | 'wallClock'>;

/** Who is signing in: the client's address as the API saw it (API Gateway's sourceIp; the socket locally). */
export interface Client {
  ip?: string;
}

/** The one 401 for a wrong password and an unknown account alike (no user enumeration: docs/api.md, Authentication). */
const badCredentials = () => new UnauthorizedError('The email or password is not right.');
const locked = (retryAfterMs: number) =>
  new RetryLaterError('LOCKED', 'Too many failed sign-ins from here: this account is locked for a while. Try again later.', retryAfterMs);

/**
 * Signs in an engine user and returns a bearer token. Lockouts are kept by
 * address whether or not the account exists, so neither the 401 nor the 429
 * tells an attacker which accounts are real.
 */
export const login = Object.assign(
  async (deps: AuthDeps, body: unknown, client: Client = {}) => signIn(deps, parse(LoginInput, body), clientTag(client)),
  { schema: LoginInput },
);

async function signIn(deps: AuthDeps, { email, password }: LoginInput, client: string) {
  const now = deps.wallClock.now();
  // The attempt is counted before the password is checked, in one conditional write: concurrent
  // guesses each take a place in the count, so no more than LOCKOUT.failures are ever checked.
  const attempt = await countAttempt(deps, email, client, now);
  if (attempt.locked) throw locked(attempt.retryAfterMs);

  const [stored, guard] = await Promise.all([deps.store.get(userKey(email)), deps.store.get(loginGuardKey(email))]);
  const user = stored && userFromItem(stored);
  const known = user?.knownClients?.includes(client) ?? false;
  if (!known && guard && loginGuardFromItem(guard).attempts >= BRAKE.failures) await brake(deps, email, now);

  const ok = user ? await verifyPassword(password, user.passwordHash) : (await verifyPassword(password, await decoyHash()), false);

  if (!ok) {
    // The failure that reaches the limit locks this client out and starts its count again.
    if (attempt.count >= LOCKOUT.failures) {
      await deps.store.update(loginClientKey(email, client), {
        set: { lockedUntil: now + LOCKOUT.ms, attempts: 0, expiresAt: expiry(now + LOCKOUT.ms) },
      });
    }
    await deps.store.update(loginGuardKey(email), { add: { attempts: 1 }, set: { expiresAt: expiry(now) } });
    throw badCredentials();
  }

  await deps.store.delete(loginClientKey(email, client));
  if (!known) {
    // The owner's clients are never braked: the latest few are remembered on the account.
    const knownClients = [client, ...(user!.knownClients ?? [])].slice(0, KNOWN_CLIENTS);
    await deps.store.update(userKey(email), { set: { knownClients }, if: { itemExists: true } }).catch(() => undefined);
  }
  const token = await new SignJWT({ iatMs: now })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(email)
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + TOKEN_TTL_SECONDS)
    .sign(await signingKey(deps));
  return { token };
}

/** How many of an account's signed-in clients are remembered. */
const KNOWN_CLIENTS = 10;

/** A client's tag: a digest of its address, so the table keeps no IP address. */
const clientTag = (client: Client) =>
  createHash('sha256')
    .update(`outbound-login\u0000${client.ip ?? 'unknown'}`)
    .digest('base64url')
    .slice(0, 16);

/** A failed streak is forgotten a day after its last attempt (the table's TTL removes the item). */
const STREAK_TTL_MS = 24 * 3_600_000;
const expiry = (ms: number) => Math.ceil((ms + STREAK_TTL_MS) / 1000);

/**
 * Takes a place in this client's streak of attempts at the address (atomic ADD), unless that
 * pair is locked. Kept whether or not the account exists.
 */
async function countAttempt(
  deps: AuthDeps,
  email: string,
  client: string,
  now: number,
): Promise<{ locked: false; count: number } | { locked: true; retryAfterMs: number }> {
  const key = loginClientKey(email, client);
  try {
    const after = await deps.store.update(key, {
      add: { attempts: 1 },
      set: { expiresAt: expiry(now) },
      if: {
        or: [
          { attr: 'lockedUntil', exists: false },
          { attr: 'lockedUntil', op: '<=', value: now },
        ],
      },
    });
    const count = loginGuardFromItem(after).attempts;
    // Places beyond the limit were taken by guesses racing the one that locks: they are refused unchecked.
    if (count > LOCKOUT.failures) return { locked: true, retryAfterMs: LOCKOUT.ms };
    return { locked: false, count };
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    const guard = await deps.store.get(key);
    const lockedUntil = (guard && loginGuardFromItem(guard).lockedUntil) ?? now;
    return { locked: true, retryAfterMs: Math.max(1000, lockedUntil - now) };
  }
}

/** The braked address's one slot: taken by one unknown client per BRAKE.everyMs; the others wait. */
async function brake(deps: AuthDeps, email: string, now: number): Promise<void> {
  try {
    await deps.store.update(loginGuardKey(email), {
      set: { nextCheckAt: now + BRAKE.everyMs },
      if: {
        or: [
          { attr: 'nextCheckAt', exists: false },
          { attr: 'nextCheckAt', op: '<=', value: now },
        ],
      },
    });
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    const guard = await deps.store.get(loginGuardKey(email));
    throw locked(Math.max(1000, ((guard && loginGuardFromItem(guard).nextCheckAt) ?? now) - now));
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
    // In milliseconds: a token issued in the same second as a reset, but before it, is ended too.
    const issuedMs = typeof payload.iatMs === 'number' ? payload.iatMs : (payload.iat ?? 0) * 1000;
    if (user.passwordChangedAt !== undefined && issuedMs < changedAtMs(user.passwordChangedAt))
      throw new Error('token from before a password reset');
    return { email: payload.sub };
  } catch {
    throw new UnauthorizedError('The bearer token is not valid or has expired: sign in again.');
  }
}
