import { describe, expect, it } from 'vitest';
import type { Store } from '../ports/store.ts';
import * as suppression from '../suppression/index.ts';
import { unitDeps } from '../testing/unit-deps.ts';
import { InstallSecretLostError, installSecret, signingKey } from './index.ts';
import { settingKey } from './keys.ts';

/** The same table seen by another process (secrets are cached per store). */
const anotherProcess = (store: Store): Store =>
  new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

describe('installation secrets', () => {
  it('are made once and read back by every process', async () => {
    const deps = unitDeps();
    const salt = await installSecret(deps, 'SUPPRESSION_SALT');
    expect(await installSecret({ ...deps, store: anotherProcess(deps.store) }, 'SUPPRESSION_SALT')).toEqual(salt);
  });

  it('a lost suppression salt or unsubscribe key stops the engine instead of being made again (people who opted out stay out)', async () => {
    const deps = unitDeps();
    await suppression.suppress(deps, 'opted-out@client.com', 'unsubscribe');
    await installSecret(deps, 'UNSUBSCRIBE_KEY');
    await signingKey(deps);
    // A partial restore loses the SETTING items.
    for (const name of ['SUPPRESSION_SALT', 'UNSUBSCRIBE_KEY', 'JWT_SECRET']) await deps.store.delete(settingKey(name));
    const later = { ...deps, store: anotherProcess(deps.store) };
    await expect(suppression.isSuppressed(later, 'opted-out@client.com')).rejects.toBeInstanceOf(InstallSecretLostError);
    await expect(installSecret(later, 'UNSUBSCRIBE_KEY')).rejects.toThrow(/UNSUBSCRIBE_KEY is missing from the table/);
    // The signing secret is only made again: tokens end, nothing else breaks.
    expect(await signingKey(later)).toHaveLength(32);
  });
});
