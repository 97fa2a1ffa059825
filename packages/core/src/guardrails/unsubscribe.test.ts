import { describe, expect, it } from 'vitest';
import type { Deps } from '../deps.ts';
import type { KeyProvider } from '../ports/key-provider.ts';
import { MemoryStore } from '../testing/memory-store.ts';
import { leadIdFromToken, unsubscribeToken, unsubscribeUrl } from './unsubscribe.ts';

/** A fresh store is a fresh installation. */
function fakeDeps(publicBaseUrl = 'https://out.example.com') {
  const store = new MemoryStore();
  // sealSecret and openSecret zero the key they are handed, so hand out copies.
  const dataKey = new Uint8Array(32).fill(7);
  const keys: KeyProvider = {
    generateDataKey: async () => ({ plaintext: dataKey.slice(), ciphertext: new Uint8Array([1, 2, 3]) }),
    decryptDataKey: async () => dataKey.slice(),
  };
  return { store, keys, config: { publicBaseUrl, rateLimits: false, timeScale: 1 } } satisfies Pick<Deps, 'store' | 'keys' | 'config'>;
}

const LEAD = '01JZ8X4M7T2V9K3QWERTYUIOPA';

describe('unsubscribe tokens', () => {
  it('round-trips the lead id and does not carry the address', async () => {
    const deps = fakeDeps();
    const token = await unsubscribeToken(deps, LEAD);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(await unsubscribeToken(deps, LEAD)).toBe(token);
    expect(await leadIdFromToken(deps, token)).toBe(LEAD);
  });

  it('refuses a changed signature, a changed id and another installation’s token', async () => {
    const deps = fakeDeps();
    const token = await unsubscribeToken(deps, LEAD);
    const [id, sig] = token.split('.') as [string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    expect(await leadIdFromToken(deps, `${id}.${flip(sig, 5)}`)).toBeUndefined();
    expect(await leadIdFromToken(deps, `${Buffer.from(`${LEAD}X`).toString('base64url')}.${sig}`)).toBeUndefined();
    expect(await leadIdFromToken(deps, `${flip(id, 3)}.${sig}`)).toBeUndefined();
    expect(await leadIdFromToken(fakeDeps(), token)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['no dot', 'abcdef'],
    ['three parts', 'a.b.c'],
    ['empty parts', '.'],
    ['not base64url', 'ab+/.cd=='],
    ['a short signature', 'QUJD.AAAA'],
    ['a huge token', `${'A'.repeat(400)}.AAAAAAAAAAAAAAAAAAAAAA`],
  ])('refuses %s', async (_, token) => {
    expect(await leadIdFromToken(fakeDeps(), token)).toBeUndefined();
  });

  it('refuses a signature with non-canonical padding bits', async () => {
    const deps = fakeDeps();
    const [id, sig] = (await unsubscribeToken(deps, LEAD)).split('.') as [string, string];
    // The last of 22 characters carries 4 unused bits: a different character can decode to the same bytes.
    const last = sig.at(-1)!;
    const twin = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
      .split('')
      .find((c) => c !== last && Buffer.from(sig.slice(0, -1) + c, 'base64url').equals(Buffer.from(sig, 'base64url')))!;
    expect(await leadIdFromToken(deps, `${id}.${sig.slice(0, -1)}${twin}`)).toBeUndefined();
  });
});

describe('unsubscribeUrl', () => {
  it('prefers the campaign template, then the built-in page, else nothing', async () => {
    const deps = fakeDeps('https://out.example.com/');
    const lead = { id: LEAD, email: 'a+b@x.com' };
    expect(await unsubscribeUrl(deps, lead, { unsubscribeUrlTemplate: 'https://example.com/u?e={{ email }}&x={{email}}' })).toBe(
      'https://example.com/u?e=a%2Bb%40x.com&x=a%2Bb%40x.com',
    );
    expect(await unsubscribeUrl(deps, lead, { unsubscribeUrlTemplate: null })).toBe(
      `https://out.example.com/unsubscribe/${await unsubscribeToken(deps, LEAD)}`,
    );
    expect(await unsubscribeUrl(fakeDeps(''), lead, {})).toBeUndefined();
  });
});
