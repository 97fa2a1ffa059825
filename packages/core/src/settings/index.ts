import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import { openSecret, sealSecret } from '../secrets/index.ts';
import { settingKey } from './keys.ts';

const signingKeys = new WeakMap<object, Promise<Uint8Array>>();

/**
 * The token-signing secret. It lives in the table, sealed like every other
 * secret, and is made once by whichever instance gets there first (a
 * conditional put); the others read the winner's. Cached per store.
 */
export function signingKey(deps: Pick<Deps, 'store' | 'keys'>): Promise<Uint8Array> {
  let cached = signingKeys.get(deps.store);
  if (!cached) {
    cached = loadOrCreateSigningKey(deps);
    cached.catch(() => signingKeys.delete(deps.store));
    signingKeys.set(deps.store, cached);
  }
  return cached;
}

const context = { purpose: 'jwt-signing-key' };

async function loadOrCreateSigningKey({ store, keys }: Pick<Deps, 'store' | 'keys'>): Promise<Uint8Array> {
  const key = settingKey('JWT_SECRET');
  const existing = await store.get(key);
  if (existing) return Buffer.from(await openSecret(keys, String(existing.sealed), context), 'base64');
  const fresh = randomBytes(32);
  try {
    await store.put({ ...key, sealed: await sealSecret(keys, fresh.toString('base64'), context) }, { if: { itemExists: false } });
    return fresh;
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    const winner = await store.get(key);
    return Buffer.from(await openSecret(keys, String(winner!.sealed), context), 'base64');
  }
}
