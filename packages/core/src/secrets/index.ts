/**
 * Envelope encryption for stored secrets (mailbox passwords, OAuth refresh
 * tokens). Each secret gets its own data key from the KeyProvider, so a leaked
 * table row is useless without a KMS call, and KMS logs every such call.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretUnreadableError } from '../errors.ts';
import type { EncryptionContext, KeyProvider } from '../ports/key-provider.ts';

const VERSION = 'v1';
const IV_BYTES = 12; // the GCM nonce size NIST SP 800-38D recommends
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const B64URL = /^[A-Za-z0-9_-]*$/; // empty allowed: an empty secret has no ciphertext bytes

/**
 * The context serialized with its keys sorted, so `{a, b}` and `{b, a}` bind
 * the same ciphertext. Prefixed with the format version so a v1 ciphertext can
 * never be read as another version's.
 */
function aad(context: EncryptionContext): Buffer {
  const entries = Object.keys(context)
    .sort()
    .map((k) => [k, context[k]]);
  return Buffer.from(`${VERSION}\n${JSON.stringify(entries)}`, 'utf8');
}

/**
 * Encrypts `plaintext` under a fresh data key and returns
 * `v1.<encrypted data key>.<iv>.<tag>.<ciphertext>` (base64url parts).
 * The same `context` (e.g. `{ tenant, mailbox }`) must be given to open it:
 * it is both the KMS encryption context and the GCM additional data, so a
 * ciphertext copied onto another row does not decrypt.
 */
export async function sealSecret(keys: KeyProvider, plaintext: string, context: EncryptionContext): Promise<string> {
  const dataKey = await keys.generateDataKey(context);
  try {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(context));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, ...[dataKey.ciphertext, iv, tag, ct].map((b) => Buffer.from(b).toString('base64url'))].join('.');
  } finally {
    // The plaintext key must not outlive this call in our memory.
    dataKey.plaintext.fill(0);
  }
}

/** Strict base64url: Buffer.from would silently skip bad characters. */
function decodePart(part: string): Buffer {
  const bytes = Buffer.from(part, 'base64url');
  if (!B64URL.test(part) || bytes.toString('base64url') !== part) {
    throw new Error('A part of the sealed secret is not canonical base64url.');
  }
  return bytes;
}

/**
 * Reverses {@link sealSecret}. Malformed input, a wrong context or any
 * altered byte throws SecretUnreadableError (the reason in `cause`, never the
 * plaintext). Errors the KeyProvider raises pass through as they are: the
 * adapter already maps a rejected data key to SecretUnreadableError, and an
 * unreachable KMS must not look like a tampered secret.
 */
export async function openSecret(keys: KeyProvider, sealed: string, context: EncryptionContext): Promise<string> {
  let edk: Buffer, iv: Buffer, tag: Buffer, ct: Buffer;
  try {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) {
      throw new Error(`Expected ${VERSION} and 5 dot-separated parts.`);
    }
    [edk, iv, tag, ct] = parts.slice(1).map(decodePart) as [Buffer, Buffer, Buffer, Buffer];
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new Error('Wrong IV or tag length.');
    }
  } catch (cause) {
    throw new SecretUnreadableError(undefined, { cause });
  }

  const dataKey = await keys.decryptDataKey(edk, context);
  try {
    if (dataKey.length !== KEY_BYTES) throw new Error('The data key is not 32 bytes.');
    const decipher = createDecipheriv('aes-256-gcm', dataKey, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new SecretUnreadableError(undefined, { cause });
  } finally {
    dataKey.fill(0);
  }
}

/** How long an opened secret is kept in a process's memory before KMS is asked again. */
export const OPENED_SECRET_TTL_MS = 10 * 60_000;

const opened = new WeakMap<KeyProvider, Map<string, { value: Promise<string>; until: number }>>();

/**
 * {@link openSecret}, remembered per process for a bounded time: a mailbox's
 * password is needed for every send and every inbox read, and a KMS call
 * each time costs a round trip and money. Keyed by the sealed value itself,
 * so a changed secret is a different entry; a failure is never remembered.
 */
export function openSecretCached(keys: KeyProvider, sealed: string, context: EncryptionContext, now = Date.now()): Promise<string> {
  let cache = opened.get(keys);
  if (!cache) opened.set(keys, (cache = new Map()));
  const id = `${JSON.stringify(Object.entries(context).sort())}\u0000${sealed}`;
  const hit = cache.get(id);
  if (hit && hit.until > now) return hit.value;
  // Expired entries go as new ones come, so the map holds at most the secrets in use.
  for (const [k, v] of cache) if (v.until <= now) cache.delete(k);
  const value = openSecret(keys, sealed, context);
  cache.set(id, { value, until: now + OPENED_SECRET_TTL_MS });
  value.catch(() => cache!.delete(id));
  return value;
}
