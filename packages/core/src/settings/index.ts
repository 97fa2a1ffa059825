import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, EngineError } from '../errors.ts';
import { openSecret, sealSecret } from '../secrets/index.ts';
import type { Item } from '../ports/store.ts';
import { installRecordKey, settingKey } from './keys.ts';
import { sealedSettingFromItem } from './entity.ts';

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

/**
 * Secrets whose loss must stop the engine: suppression and erase hashes and
 * unsubscribe links were made with them. A lost signing secret is only
 * made again (every token ends, people sign in again).
 */
const KEPT: ReadonlySet<InstallSecretName> = new Set(['SUPPRESSION_SALT', 'UNSUBSCRIBE_KEY']);

/** An installation secret the table once held is missing: making a new one would silently break what the old one keyed. */
export class InstallSecretLostError extends EngineError {
  constructor(name: InstallSecretName) {
    super(
      'UNAVAILABLE',
      `The installation's ${name} is missing from the table (a partial restore?). Restore the SETTING item ${name}: ` +
        'the engine will not make a new one, because every suppression, erase and unsubscribe link made with the old one would stop matching.',
    );
  }
}

async function loadOrCreate({ store, keys }: Pick<Deps, 'store' | 'keys'>, name: InstallSecretName): Promise<Uint8Array> {
  const key = settingKey(name);
  const context = { purpose: 'install-secret', name };
  const open = async (item: Item) => Buffer.from(await openSecret(keys, sealedSettingFromItem(item).sealed, context), 'base64');
  const existing = await store.get(key);
  if (existing) {
    // Installations older than the record get it now, so a later loss is recognised.
    await store.update(installRecordKey, { set: { [name]: true } });
    return open(existing);
  }
  if (KEPT.has(name) && (await store.get(installRecordKey))?.[name]) throw new InstallSecretLostError(name);
  const fresh = randomBytes(32);
  try {
    // The secret and its line in the record, together.
    await store.transact([
      { put: { ...key, sealed: await sealSecret(keys, fresh.toString('base64'), context) }, if: { itemExists: false } },
      // A new salt means no suppression exists yet: from here every one is also in the suppression index (suppression/keys.ts).
      {
        update: installRecordKey,
        change: { set: { [name]: true, ...(name === 'SUPPRESSION_SALT' ? { suppressionsIndexed: true } : {}) } },
      },
    ]);
    return fresh;
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    return open((await store.get(key))!);
  }
}
