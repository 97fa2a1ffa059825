/**
 * A local stand-in for AWS KMS: the real @aws-sdk/client-kms talks to it
 * unchanged (JSON 1.1 protocol, `X-Amz-Target: TrentService.<Op>`, byte fields
 * base64). It covers what envelope encryption needs: GenerateDataKey, Encrypt
 * and Decrypt under one AES-256-GCM master key, with the encryption context as
 * additional data so a wrong context fails exactly as on AWS.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { hostAllowed, startCredentials } from './net.ts';
import { verifySigV4 } from './sigv4.ts';

const KEY_ID = 'alias/outbound-local';
const MASTER_KEY_FILE = 'kms-master.key';
const MASTER_KEY_BYTES = 32;
const BLOB_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_BODY_BYTES = 64 * 1024; // KMS plaintexts are at most 4 KiB; anything far larger is a mistake

/** An error KMS would return; `type` becomes `__type` and x-amzn-ErrorType. */
class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * The master key survives restarts in `<dataDir>/kms-master.key` (0600), or
 * lives only in memory. Losing the file makes every sealed secret unreadable,
 * which is why a file of the wrong size stops the start instead of being replaced.
 */
async function loadMasterKey(dataDir: string): Promise<Buffer> {
  if (dataDir === 'memory') return randomBytes(MASTER_KEY_BYTES);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    // 'wx' fails if the file exists, so a concurrent start never overwrites a key.
    await writeFile(path, randomBytes(MASTER_KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // The key opens every stored secret: a copy other users can read is a leak waiting to happen, so the start stops.
  const { mode } = await stat(path);
  if (mode & 0o077) {
    throw new Error(
      `Local KMS: ${path} can be read by other users of this machine (mode ${(mode & 0o777).toString(8)}). Run \`chmod 600 ${path}\`, then start again.`,
    );
  }
  const key = await readFile(path);
  if (key.length !== MASTER_KEY_BYTES) {
    throw new Error(
      `Local KMS: ${path} holds ${key.length} bytes, not ${MASTER_KEY_BYTES}. ` +
        'It is not a master key this server wrote; restore the right file or choose another data directory.',
    );
  }
  return key;
}

/** Keys sorted, so the AAD does not depend on the order a client sent them in. */
function contextAad(context: unknown): Buffer {
  if (context === undefined || context === null) return Buffer.alloc(0);
  if (typeof context !== 'object' || Array.isArray(context)) {
    throw new KmsError('ValidationException', 'EncryptionContext must be a map of strings.');
  }
  const entries = Object.entries(context as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.some(([, v]) => typeof v !== 'string')) {
    throw new KmsError('ValidationException', 'EncryptionContext values must be strings.');
  }
  return Buffer.from(JSON.stringify(entries), 'utf8');
}

function base64Field(value: unknown, name: string): Buffer {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
    throw new KmsError('ValidationException', `${name} must be base64.`);
  }
  return Buffer.from(value, 'base64');
}

type Request = Record<string, unknown>;

function makeOperations(master: Buffer, keyId: string) {
  const checkKeyId = (id: unknown, required: boolean) => {
    if (id === undefined && !required) return;
    if (id !== keyId) throw new KmsError('NotFoundException', `Key '${String(id)}' does not exist.`);
  };

  // Blob: version (1) | iv (12) | tag (16) | ciphertext. It carries all Decrypt needs.
  const wrap = (plaintext: Buffer, aad: Buffer): Buffer => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', master, iv, { authTagLength: TAG_BYTES }).setAAD(aad);
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([BLOB_VERSION]), iv, cipher.getAuthTag(), ct]);
  };

  const unwrap = (blob: Buffer, aad: Buffer): Buffer => {
    try {
      if (blob.length < 1 + IV_BYTES + TAG_BYTES || blob[0] !== BLOB_VERSION) throw new Error('bad blob');
      const iv = blob.subarray(1, 1 + IV_BYTES);
      const tag = blob.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', master, iv, { authTagLength: TAG_BYTES }).setAAD(aad);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(blob.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      // Like AWS: one answer for tampering and for a wrong context.
      throw new KmsError('InvalidCiphertextException', 'The ciphertext is invalid or does not match the encryption context.');
    }
  };

  return {
    GenerateDataKey(req: Request) {
      checkKeyId(req.KeyId, true);
      const bytes = req.KeySpec === 'AES_256' ? 32 : req.KeySpec === 'AES_128' ? 16 : req.KeySpec === undefined ? req.NumberOfBytes : NaN;
      if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 1 || bytes > 1024) {
        throw new KmsError('ValidationException', 'Give KeySpec AES_256 or AES_128, or NumberOfBytes from 1 to 1024.');
      }
      const plaintext = randomBytes(bytes);
      const blob = wrap(plaintext, contextAad(req.EncryptionContext));
      return { KeyId: keyId, Plaintext: plaintext.toString('base64'), CiphertextBlob: blob.toString('base64') };
    },
    Encrypt(req: Request) {
      checkKeyId(req.KeyId, true);
      const plaintext = base64Field(req.Plaintext, 'Plaintext');
      if (plaintext.length < 1 || plaintext.length > 4096) {
        throw new KmsError('ValidationException', 'Plaintext must be 1 to 4096 bytes.');
      }
      const blob = wrap(plaintext, contextAad(req.EncryptionContext));
      return { KeyId: keyId, CiphertextBlob: blob.toString('base64') };
    },
    Decrypt(req: Request) {
      checkKeyId(req.KeyId, false);
      const blob = base64Field(req.CiphertextBlob, 'CiphertextBlob');
      const plaintext = unwrap(blob, contextAad(req.EncryptionContext));
      return { KeyId: keyId, Plaintext: plaintext.toString('base64') };
    },
  } satisfies Record<string, (req: Request) => unknown>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new KmsError('ValidationException', 'Request body is too large.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-amz-json-1.1' };
  // The SDK reads the error name from this header first, then from __type.
  if (errorType) headers['x-amzn-ErrorType'] = errorType;
  res.writeHead(status, headers).end(JSON.stringify(body));
}

/**
 * Starts the local KMS on 127.0.0.1 (an ephemeral port unless `port` is
 * given). Point a KMSClient at `endpoint` with `credentials` and use `keyId`
 * as its key. Every request must be signed (SigV4) with those credentials,
 * made at this start unless given: another user of the machine can reach the
 * port, but cannot open a sealed secret without them. A request whose Host
 * is a name other than localhost (a browser on a DNS-rebinding page) is
 * refused as well.
 */
export async function startLocalKms(opts: {
  dataDir: string | 'memory';
  port?: number;
  host?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}): Promise<{ endpoint: string; keyId: string; credentials: { accessKeyId: string; secretAccessKey: string }; stop(): Promise<void> }> {
  const master = await loadMasterKey(opts.dataDir);
  const credentials = opts.credentials ?? startCredentials();
  const operations: Record<string, ((req: Request) => unknown) | undefined> = makeOperations(master, KEY_ID);

  const server = createServer((req, res) => {
    void (async () => {
      try {
        const target = req.headers['x-amz-target'];
        const op = typeof target === 'string' && target.startsWith('TrentService.') ? target.slice(13) : undefined;
        if (!hostAllowed(req.headers.host))
          throw new KmsError('AccessDeniedException', 'This key service answers requests to 127.0.0.1 or localhost only.', 403);
        const handler = req.method === 'POST' && op && Object.hasOwn(operations, op) ? operations[op] : undefined;
        if (!handler) throw new KmsError('UnknownOperationException', `Unsupported operation: ${String(target)}.`);
        const body = await readBody(req);
        if (!verifySigV4(req, body, credentials)) {
          throw new KmsError(
            'UnrecognizedClientException',
            'The security token included in the request is invalid: this key service takes requests signed with the credentials made at its start.',
          );
        }
        let input: unknown;
        try {
          input = JSON.parse(body.toString('utf8') || '{}');
        } catch {
          throw new KmsError('SerializationException', 'The request body is not JSON.');
        }
        if (typeof input !== 'object' || input === null || Array.isArray(input)) {
          throw new KmsError('SerializationException', 'The request body must be a JSON object.');
        }
        reply(res, 200, handler(input as Request));
      } catch (err) {
        const e = err instanceof KmsError ? err : new KmsError('KMSInternalException', 'Internal error.', 500);
        if (!(err instanceof KmsError)) console.error('local KMS:', err);
        reply(res, e.status, { __type: e.type, message: e.message }, e.type);
      }
    })();
  });

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    endpoint: `http://${urlHost}:${port}`,
    keyId: KEY_ID,
    credentials,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // The SDK keeps connections alive; without this close() waits for them.
        server.closeAllConnections();
      }),
  };
}
