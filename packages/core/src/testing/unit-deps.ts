/**
 * Deps for the unit tier: every port in memory, so a rule of core runs in
 * milliseconds with no server. The store is the MemoryStore (held to the
 * DynamoDB adapter by the store's contract tests); the clocks are moved by
 * hand; the mailer records what it was asked to send and answers what the
 * test scripts. Integration and end-to-end tests use the real adapters.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { SecretUnreadableError } from '../errors.ts';
import { createLogger, type Fields } from '../log.ts';
import { ManualClock } from '../ports/clock.ts';
import type { EncryptionContext, KeyProvider } from '../ports/key-provider.ts';
import type { MailboxTransport, Mailer, OutgoingEmail, SendHooks, SendResult } from '../ports/mailer.ts';
import { MemoryStore } from './memory-store.ts';
import type { QueueMessage } from '../ports/queue.ts';
import type { MetricName, Metrics } from '../ports/metrics.ts';

/** Envelope keys under one master key held in memory; the context is the GCM additional data, as with KMS. */
export class MemoryKeys implements KeyProvider {
  private readonly master = randomBytes(32);
  calls = 0;

  async generateDataKey(context: EncryptionContext) {
    this.calls++;
    const plaintext = randomBytes(32);
    return { plaintext: new Uint8Array(plaintext), ciphertext: this.wrap(plaintext, context) };
  }

  async decryptDataKey(ciphertext: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    this.calls++;
    const blob = Buffer.from(ciphertext);
    try {
      const d = createDecipheriv('aes-256-gcm', this.master, blob.subarray(0, 12));
      d.setAAD(Buffer.from(JSON.stringify(Object.entries(context).sort())));
      d.setAuthTag(blob.subarray(12, 28));
      return new Uint8Array(Buffer.concat([d.update(blob.subarray(28)), d.final()]));
    } catch (cause) {
      throw new SecretUnreadableError(undefined, { cause });
    }
  }

  private wrap(key: Buffer, context: EncryptionContext): Uint8Array {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.master, iv);
    c.setAAD(Buffer.from(JSON.stringify(Object.entries(context).sort())));
    const body = Buffer.concat([c.update(key), c.final()]);
    return new Uint8Array(Buffer.concat([iv, c.getAuthTag(), body]));
  }
}

/** Records every send; answers `ok` unless the test queued another result. */
export class RecordingMailer implements Mailer {
  readonly sent: { transport: MailboxTransport; email: OutgoingEmail }[] = [];
  private readonly scripted: SendResult[] = [];

  /** The next sends answer these, in order (then `ok` again). */
  answer(...results: SendResult[]): void {
    this.scripted.push(...results);
  }

  async send(transport: MailboxTransport, email: OutgoingEmail, hooks: SendHooks = {}): Promise<SendResult> {
    const result = this.scripted.shift() ?? { ok: true, response: '250 2.0.0 queued' };
    // As over SMTP: the hook runs once the server would have accepted DATA (not for a failure before it), and a hook that throws sends nothing.
    if (hooks.beforeMessage && (result.ok || result.kind === 'unknown')) {
      try {
        await hooks.beforeMessage();
      } catch (err) {
        return { ok: false, kind: 'connection', detail: err instanceof Error ? err.message : String(err) };
      }
    }
    if (result.ok || result.kind === 'unknown') this.sent.push({ transport, email });
    return result;
  }

  async close(): Promise<void> {}
}

/** Counts what core counted, by name. */
export class RecordingMetrics implements Metrics {
  readonly counts: Partial<Record<MetricName, number>> = {};
  count(name: MetricName, value = 1): void {
    this.counts[name] = (this.counts[name] ?? 0) + value;
  }
}

export interface UnitDeps extends Deps {
  metrics: RecordingMetrics;
  store: MemoryStore;
  keys: MemoryKeys;
  clock: ManualClock;
  wallClock: ManualClock;
  mailer: RecordingMailer;
  queued: QueueMessage[];
  logs: Fields[];
}

const unused = (port: string) => () => {
  throw new Error(`the unit tier has no ${port}: pass one in overrides`);
};

/** Every port in memory; `overrides` replaces any of them. Both clocks start at 2026-03-02 09:00 UTC, a Monday. */
export function unitDeps(overrides: Partial<Deps> = {}): UnitDeps {
  const logs: Fields[] = [];
  const queued: QueueMessage[] = [];
  const start = Date.UTC(2026, 2, 2, 9);
  let seed = 1;
  const deps: UnitDeps = {
    store: new MemoryStore(),
    keys: new MemoryKeys(),
    clock: new ManualClock(start),
    wallClock: new ManualClock(start),
    log: createLogger((line) => logs.push(line)),
    logs,
    queued,
    config: { publicBaseUrl: 'https://outbound.example.com', rateLimits: false, timeScale: 1 },
    signIn: { smtp: async () => ({ ok: true }), imap: async () => ({ ok: true }) },
    mailer: new RecordingMailer(),
    mailReader: {
      readInbox: unused('mail reader'),
      sentContains: unused('mail reader'),
      spamFolder: unused('mail reader'),
      placementOf: unused('mail reader'),
    },
    ai: { write: unused('AI writer'), choose: unused('AI writer') },
    oauth: { exchangeCode: unused('OAuth client'), refresh: unused('OAuth client'), profile: unused('OAuth client') },
    queue: { enqueue: async (messages) => void queued.push(...messages) },
    webhookQueue: { enqueue: async () => {} },
    webhookPoster: { post: unused('webhook poster') },
    blobs: memoryBlobs(),
    dns: { txt: unused('DNS'), a: unused('DNS'), mx: unused('DNS') },
    // A seeded generator: jitter and spintax repeat from run to run.
    random: () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646,
    metrics: new RecordingMetrics(),
    ...overrides,
  } as UnitDeps;
  return deps;
}

/** A verb's answer with its id typed: rows leave core as plain records. */
export async function created<I>(
  verb: (deps: UnitDeps, input: I) => Promise<unknown>,
  deps: UnitDeps,
  input: I,
): Promise<Record<string, unknown> & { id: string }> {
  const row = (await verb(deps, input)) as Record<string, unknown>;
  return { ...row, id: String(row.id) };
}

/** Blobs in a Map, for unit tests; an upload link names the key and size but leads nowhere. */
function memoryBlobs(): Deps['blobs'] {
  const blobs = new Map<string, Buffer>();
  return {
    put: async (key, body) => void blobs.set(key, Buffer.from(body)),
    get: async (key) => blobs.get(key),
    delete: async (key) => void blobs.delete(key),
    uploadTicket: async (key, { bytes, contentType }) => ({
      url: `memory://${key}?bytes=${bytes}`,
      method: 'PUT',
      headers: { 'content-type': contentType },
    }),
  };
}
