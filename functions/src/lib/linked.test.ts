import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * SST hands a linked secret to the function as `SST_RESOURCE_<name>` (or in its encrypted file): Resource reads them
 * once, when first loaded (Node keeps the package loaded for the whole file, so this file has one case).
 */
async function linkedWith(env: Record<string, string>) {
  vi.resetModules();
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  return (await import('./linked.ts')).linkedOAuthEnv();
}

afterEach(() => vi.unstubAllEnvs());

describe('the OAuth apps linked by the stack', () => {
  it('are read with SST Resource into the variables the configuration reads; unset and unlinked ones are left out', async () => {
    const env = await linkedWith({
      SST_RESOURCE_App: JSON.stringify({ name: 'outbound', stage: 'test' }),
      SST_RESOURCE_GoogleClientId: JSON.stringify({ type: 'sst.sst.Secret', value: 'gid' }),
      SST_RESOURCE_GoogleClientSecret: JSON.stringify({ type: 'sst.sst.Secret', value: 'gsecret' }),
      SST_RESOURCE_MicrosoftClientId: JSON.stringify({ type: 'sst.sst.Secret', value: '' }),
    });
    expect(env).toEqual({ GOOGLE_CLIENT_ID: 'gid', GOOGLE_CLIENT_SECRET: 'gsecret' });
  });
});
