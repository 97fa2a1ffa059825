import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretUnreadableError } from '../errors.ts';
import type { EncryptionContext, KeyProvider } from '../ports/key-provider.ts';
import { MemoryKeys } from '../testing/unit-deps.ts';
import { OPENED_SECRET_TTL_MS, openSecret, openSecretCached, sealSecret } from './index.ts';

/** A KMS in miniature: a random master key wraps data keys, the context is the AAD. */
function inMemoryKeys(): KeyProvider {
  const master = randomBytes(32);
  const aad = (c: EncryptionContext) => Buffer.from(JSON.stringify(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : 1))));
  return {
    async generateDataKey(context) {
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad(context));
      const wrapped = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return { plaintext, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), wrapped]) };
    },
    async decryptDataKey(ciphertext, context) {
      const blob = Buffer.from(ciphertext);
      try {
        const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12)).setAAD(aad(context));
        decipher.setAuthTag(blob.subarray(12, 28));
        return Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]);
      } catch (cause) {
        // As the KMS adapter does with InvalidCiphertextException.
        throw new SecretUnreadableError(undefined, { cause });
      }
    },
  };
}

const context = { tenant: 't_1', mailbox: 'm_1' };
const secret = 'smtp-password-Ünïcode-🔑';

describe('sealSecret / openSecret', () => {
  it('round-trips, including an empty secret', async () => {
    const keys = inMemoryKeys();
    expect(await openSecret(keys, await sealSecret(keys, secret, context), context)).toBe(secret);
    expect(await openSecret(keys, await sealSecret(keys, '', context), context)).toBe('');
  });

  it('ignores the order of context keys', async () => {
    const keys = inMemoryKeys();
    const sealed = await sealSecret(keys, secret, context);
    expect(await openSecret(keys, sealed, { mailbox: 'm_1', tenant: 't_1' })).toBe(secret);
  });

  it('produces a v1 string that contains neither the plaintext nor its base64', async () => {
    const keys = inMemoryKeys();
    const plain = 'correct horse battery staple';
    const sealed = await sealSecret(keys, plain, context);
    expect(sealed).toMatch(/^v1(\.[A-Za-z0-9_-]+){4}$/);
    expect(sealed).not.toContain(plain);
    expect(sealed).not.toContain(Buffer.from(plain).toString('base64'));
    expect(sealed).not.toContain(Buffer.from(plain).toString('base64url'));
  });

  it('rejects a flip of any one byte of the ciphertext part', async () => {
    const keys = inMemoryKeys();
    const sealed = await sealSecret(keys, secret, context);
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[4]!, 'base64url');
    for (let i = 0; i < ct.length; i++) {
      const bad = Buffer.from(ct);
      bad[i]! ^= 0x01;
      const tampered = [...parts.slice(0, 4), bad.toString('base64url')].join('.');
      await expect(openSecret(keys, tampered, context)).rejects.toBeInstanceOf(SecretUnreadableError);
    }
  });

  it('rejects any changed character of the sealed string', async () => {
    const keys = inMemoryKeys();
    const sealed = await sealSecret(keys, secret, context);
    for (let i = 0; i < sealed.length; i++) {
      const swapped = sealed[i] === 'A' ? 'B' : 'A';
      const tampered = sealed.slice(0, i) + swapped + sealed.slice(i + 1);
      await expect(openSecret(keys, tampered, context)).rejects.toBeInstanceOf(SecretUnreadableError);
    }
  });

  it('rejects malformed input without echoing it', async () => {
    const keys = inMemoryKeys();
    for (const junk of ['', 'v1', 'v2.a.b.c.d', 'v1.a.b.c', 'v1.!!.AA.AA.AA', secret]) {
      const err = await openSecret(keys, junk, context).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SecretUnreadableError);
      expect((err as SecretUnreadableError).code).toBe('SECRET_UNREADABLE');
      expect((err as Error).cause).toBeDefined();
    }
  });

  it('rejects a different context', async () => {
    const keys = inMemoryKeys();
    const sealed = await sealSecret(keys, secret, context);
    const err = await openSecret(keys, sealed, { ...context, mailbox: 'm_2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretUnreadableError);
    expect((err as Error).message).not.toContain(secret);
    await expect(openSecret(keys, sealed, { tenant: 't_1' })).rejects.toBeInstanceOf(SecretUnreadableError);
  });

  it('gives two different strings for the same plaintext', async () => {
    const keys = inMemoryKeys();
    const a = await sealSecret(keys, secret, context);
    const b = await sealSecret(keys, secret, context);
    expect(a).not.toBe(b);
  });

  it('zeroes the data key once the secret is sealed', async () => {
    const inner = inMemoryKeys();
    let handedOut: Uint8Array | undefined;
    const keys: KeyProvider = {
      ...inner,
      async generateDataKey(c) {
        const dk = await inner.generateDataKey(c);
        handedOut = dk.plaintext;
        return dk;
      },
    };
    await sealSecret(keys, secret, context);
    expect(handedOut!.every((b) => b === 0)).toBe(true);
  });
});

describe('openSecretCached', () => {
  it('asks the key provider once per secret for ten minutes, then again; a wrong context is never served from the cache', async () => {
    const keys = new MemoryKeys();
    const sealed = await sealSecret(keys, 'app-password', { purpose: 'mailbox-password', mailboxId: 'm1' });
    const before = keys.calls;
    const t0 = Date.UTC(2026, 0, 1);
    expect(await openSecretCached(keys, sealed, { purpose: 'mailbox-password', mailboxId: 'm1' }, t0)).toBe('app-password');
    expect(await openSecretCached(keys, sealed, { purpose: 'mailbox-password', mailboxId: 'm1' }, t0 + 60_000)).toBe('app-password');
    expect(keys.calls - before).toBe(1);
    await expect(openSecretCached(keys, sealed, { purpose: 'mailbox-password', mailboxId: 'm2' }, t0)).rejects.toThrow();
    expect(await openSecretCached(keys, sealed, { purpose: 'mailbox-password', mailboxId: 'm1' }, t0 + OPENED_SECRET_TTL_MS + 1)).toBe(
      'app-password',
    );
    expect(keys.calls - before).toBe(3);
  });
});
