import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import { openSecret, sealSecret } from '../secrets/index.ts';
import { settingKey } from './keys.ts';

export type InstallSecretName = 'JWT_SECRET' | 'SUPPRESSION_SALT' | 'UNSUBSCRIBE_KEY';

const cache = new WeakMap<object, Map<InstallSecretName, Promise<Uint8Array>>>();

/**
 * 32 random bytes belonging to this installation (the token-signing secret,
 * the suppression salt, ...). Each lives in the table, sealed like every other
 * secret, and is made once by whichever instance gets there first (a
 * conditional put); the others read the winner's. Cached per store.
 */
export function installSecret(deps: Pick<Deps, 'store' | 'keys'>, name: InstallSecretName): Promise<Uint8Array> {
  let byName = cache.get(deps.store);
  if (!byName) cache.set(deps.store, (byName = new Map()));
  let secret = byName.get(name);
  if (!secret) {
    secret = loadOrCreate(deps, name);
    secret.catch(() => byName!.delete(name));
    byName.set(name, secret);
  }
  return secret;
}

export const signingKey = (deps: Pick<Deps, 'store' | 'keys'>) => installSecret(deps, 'JWT_SECRET');

async function loadOrCreate({ store, keys }: Pick<Deps, 'store' | 'keys'>, name: InstallSecretName): Promise<Uint8Array> {
  const key = settingKey(name);
  const context = { purpose: 'install-secret', name };
  const open = async (item: Record<string, unknown>) => Buffer.from(await openSecret(keys, String(item.sealed), context), 'base64');
  const existing = await store.get(key);
  if (existing) return open(existing);
  const fresh = randomBytes(32);
  try {
    await store.put({ ...key, sealed: await sealSecret(keys, fresh.toString('base64'), context) }, { if: { itemExists: false } });
    return fresh;
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    return open((await store.get(key))!);
  }
}
