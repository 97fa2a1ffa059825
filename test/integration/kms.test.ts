import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { KmsKeyProvider } from '@outbound/aws/kms-keys';
import { SecretUnreadableError } from '@outbound/core/errors';
import { openSecret, sealSecret } from '@outbound/core/secrets/index';
import { rebindingStatus } from '../helpers/rebinding.ts';
import { startLocalKms } from '@outbound/local/kms-server';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

type LocalKms = Awaited<ReturnType<typeof startLocalKms>>;

const started: LocalKms[] = [];
const clients: KMSClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await Promise.all(started.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'outbound-kms-'));
  dirs.push(dir);
  return dir;
}

async function start(dataDir: string | 'memory'): Promise<LocalKms> {
  const kms = await startLocalKms({ dataDir });
  started.push(kms);
  return kms;
}

/** A real SDK client; it refuses to point anywhere but this machine. */
function clientFor(kms: LocalKms): KMSClient {
  const host = new URL(kms.endpoint).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`Refusing non-local KMS endpoint ${kms.endpoint}`);
  const client = new KMSClient({
    endpoint: kms.endpoint,
    region: 'us-east-1',
    credentials: kms.credentials,
  });
  clients.push(client);
  return client;
}

function keysFor(kms: LocalKms): KmsKeyProvider {
  return new KmsKeyProvider({ client: clientFor(kms), keyId: kms.keyId });
}

const context = { tenant: 't_1', mailbox: 'm_1' };
const secret = 'imap-app-password-42';

describe('local KMS through the real SDK and KmsKeyProvider', () => {
  it('round-trips a sealed secret', async () => {
    const keys = keysFor(await start('memory'));
    const sealed = await sealSecret(keys, secret, context);
    expect(sealed).not.toContain(secret);
    expect(await openSecret(keys, sealed, { mailbox: 'm_1', tenant: 't_1' })).toBe(secret);
  });

  it('fails with SecretUnreadableError under a different context', async () => {
    const keys = keysFor(await start('memory'));
    const sealed = await sealSecret(keys, secret, context);
    const err = await openSecret(keys, sealed, { ...context, tenant: 't_2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretUnreadableError);
    expect((err as Error).cause).toMatchObject({ name: 'InvalidCiphertextException' });
  });

  it('fails with SecretUnreadableError when one byte of the data key or ciphertext is flipped', async () => {
    const keys = keysFor(await start('memory'));
    const sealed = await sealSecret(keys, secret, context);
    const parts = sealed.split('.');
    for (const index of [1, 4]) {
      const bytes = Buffer.from(parts[index]!, 'base64url');
      bytes[Math.floor(bytes.length / 2)]! ^= 0x80;
      const tampered = parts.map((p, i) => (i === index ? bytes.toString('base64url') : p)).join('.');
      await expect(openSecret(keys, tampered, context)).rejects.toBeInstanceOf(SecretUnreadableError);
    }
  });

  it('surfaces InvalidCiphertextException by name to a bare SDK client', async () => {
    const kms = await start('memory');
    const client = clientFor(kms);
    const enc = await client.send(new EncryptCommand({ KeyId: kms.keyId, Plaintext: Buffer.from('hello'), EncryptionContext: context }));
    const dec = await client.send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob, EncryptionContext: context }));
    expect(Buffer.from(dec.Plaintext!).toString()).toBe('hello');

    const err = await client
      .send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob, EncryptionContext: { other: 'x' } }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'InvalidCiphertextException', $metadata: { httpStatusCode: 400 } });
  });

  it('opens nothing for a client without the credentials made at its start, nor for a request addressed to another name (DNS rebinding)', async () => {
    const kms = await start('memory');
    const sealed = await sealSecret(keysFor(kms), secret, context);
    // Another user of the machine reaches the port, with any credentials but the engine's.
    const stranger = new KMSClient({
      endpoint: kms.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: kms.credentials.accessKeyId, secretAccessKey: 'guessed' },
    });
    clients.push(stranger);
    await expect(openSecret(new KmsKeyProvider({ client: stranger, keyId: kms.keyId }), sealed, context)).rejects.toThrow();
    const other = new KMSClient({
      endpoint: kms.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    clients.push(other);
    const err = await other.send(new EncryptCommand({ KeyId: kms.keyId, Plaintext: Buffer.from('x') })).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 400 } });
    // A page on an attacker's name that resolves to 127.0.0.1 carries that name in Host.
    expect(await rebindingStatus(kms.endpoint, 'TrentService.Decrypt', 'application/x-amz-json-1.1')).toBe(403);
    // The engine's own client, with the credentials, still opens it.
    expect(await openSecret(keysFor(kms), sealed, context)).toBe(secret);
  });

  it('answers UnknownOperationException for an operation it does not implement', async () => {
    const kms = await start('memory');
    const res = await fetch(kms.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'TrentService.ScheduleKeyDeletion' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-amzn-errortype')).toBe('UnknownOperationException');
    expect(await res.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });

  it('keeps the master key in a 0600 file and reuses it after a restart', async () => {
    const dataDir = join(await tempDir(), 'nested', 'kms');
    const first = await start(dataDir);
    const sealed = await sealSecret(keysFor(first), secret, context);
    expect((await stat(join(dataDir, 'kms-master.key'))).mode & 0o777).toBe(0o600);
    await started.pop()!.stop();

    const second = await start(dataDir);
    expect(second.endpoint).not.toBe(first.endpoint);
    expect(await openSecret(keysFor(second), sealed, context)).toBe(secret);

    const stranger = await start(await tempDir());
    await expect(openSecret(keysFor(stranger), sealed, context)).rejects.toBeInstanceOf(SecretUnreadableError);
  });

  it('refuses to start when the master key file has the wrong size', async () => {
    const dataDir = await tempDir();
    await writeFile(join(dataDir, 'kms-master.key'), Buffer.alloc(7), { mode: 0o600 });
    await expect(startLocalKms({ dataDir })).rejects.toThrow(/holds 7 bytes, not 32/);
  });

  it('refuses to start with a master key other users can read, and makes a new data directory for its user only', async () => {
    const dataDir = await tempDir();
    await writeFile(join(dataDir, 'kms-master.key'), randomBytes(32), { mode: 0o644 });
    await chmod(join(dataDir, 'kms-master.key'), 0o644);
    await expect(startLocalKms({ dataDir })).rejects.toThrow(/can be read by other users .*mode 644.*chmod 600/);
    const fresh = join(await tempDir(), 'new-data');
    await start(fresh);
    expect((await stat(fresh)).mode & 0o777).toBe(0o700);
  });
});
