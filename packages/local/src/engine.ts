import { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import type { IndexName, Store } from '@outbound/core/ports/store';
import { KmsKeyProvider } from '@outbound/aws/kms-keys';
import { systemClock, type Clock } from '@outbound/core/ports/clock';
import { engineClock } from './clock.ts';
import type { Deps } from '@outbound/core/deps';
import { createLogger, type Level, type Logger, type Sink } from '@outbound/core/log';
import * as users from '@outbound/core/user/index';
import { functions, schedules, table, type FunctionName } from '@outbound/functions/manifest';
import { buildDeps, restrictTo, withDeps } from '@outbound/functions/lib/deps';
import { aiKit } from '@outbound/functions/lib/kits/ai';
import { mailKit } from '@outbound/functions/lib/kits/mail';
import type { OAuthApp, OAuthProviderName } from '@outbound/core/ports/oauth';
import { ensureTable, localDynamoClient, startDynamoLocal, type DynamoLocal, type LocalCredentials } from './dynamo-local.ts';
import { createHttpAdapter, lambdaContext, type LambdaHandler } from './http-adapter.ts';
import { startLocalKms } from './kms-server.ts';
import { startSqsLocal } from './sqs-local.ts';
import { startQueueConsumer } from './queue-consumer.ts';
import { SqsSendQueue, SqsWebhookQueue } from '@outbound/aws/sqs-queue';
import { webhookPoster } from '@outbound/mail/webhook-poster';
import { localBlobs } from './local-blobs.ts';

/**
 * DynamoDB Local answers the first request of each kind in a few hundred
 * milliseconds (its JVM loads and compiles the code path), later ones in a
 * few: each kind the send path and the dispatcher use is made a few times
 * before the engine answers, on an item of its own that is removed after.
 */
async function warmStore(store: Store): Promise<void> {
  const key = { pk: 'LOCAL#WARMUP', sk: 'WARMUP' };
  const indexes = Object.keys(table.indexes) as IndexName[];
  for (let round = 0; round < 3; round++) {
    await Promise.all([
      ...indexes.map((index) => store.query({ index, pk: key.pk, limit: 1 })),
      store.query({ pk: key.pk, limit: 1 }),
      store.batchGet([key]),
      store.get(key),
    ]);
    await store.transact([
      { update: key, change: { add: { n: 1 } } },
      { check: { pk: key.pk, sk: 'ABSENT' }, if: { itemExists: false } },
    ]);
    await store.update(key, { add: { n: 1 }, if: { itemExists: true } });
  }
  await store.delete(key);
}

/**
 * Sender invocations at once, as Lambda scales the queue's consumer out (the
 * stack caps it with reserved concurrency). Each takes a batch of up to 10.
 */
const SENDER_CONCURRENCY = 4;

const waitUntil = async (done: () => boolean) => {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
};

export interface EngineOptions {
  port?: number;
  host?: string;
  /** A folder, or 'memory' to keep nothing. */
  dataDir?: string;
  tableName?: string;
  /** How long a CSV import stores rows before answering RUNNING (18 s); tests shorten it. */
  importAnswerWithinMs?: number;
  /** Use a DynamoDB Local that is already running (tests share one) instead of starting one. */
  dynamoEndpoint?: string;
  /** The credentials that DynamoDB Local was started with: its database is the one these reach. */
  dynamoCredentials?: LocalCredentials;
  admin?: { email: string; password: string };
  /** '' for an installation without a domain for the built-in unsubscribe page. */
  publicBaseUrl?: string;
  timeScale?: number;
  rateLimits?: boolean;
  /** DNS_SERVERS: every lookup goes to these `host:port` servers. */
  dnsServers?: string[];
  /** OPENAI_BASE_URL, ANTHROPIC_BASE_URL: where AI calls go. */
  openaiBaseUrl?: string;
  anthropicBaseUrl?: string;
  /** The OAuth apps (GOOGLE_CLIENT_ID and the like, with endpoint overrides). */
  oauth?: Partial<Record<OAuthProviderName, OAuthApp>>;
  /** Jitter and spintax randomness; tests pass a seeded one. */
  random?: () => number;
  /** Run the sender and the dispatcher (default true). */
  sending?: boolean;
  sink?: Sink;
  /** The least severe log lines written (LOG_LEVEL). Default info. */
  logLevel?: Level;
  /** Tests replace the clocks to move time without sleeping. */
  clock?: Clock;
  wallClock?: Clock;
}

export interface Engine {
  url: string;
  deps: Deps;
  log: Logger;
  /** The SDK clients the adapters use, so a bench can count requests with a middleware. */
  clients: { dynamo: DynamoDBClient; kms: KMSClient };
  /** Requests being answered right now. */
  inFlight(): number;
  stop(): Promise<void>;
}

/**
 * Starts the whole engine in this process: the stand-ins (DynamoDB Local,
 * the local KMS server, fauxqs), the table, the engine user, the HTTP
 * adapter serving the Lambda handlers, and the schedules on timers.
 */
export async function startEngine(opts: EngineOptions = {}): Promise<Engine> {
  const host = opts.host ?? '127.0.0.1';
  const dataDir = opts.dataDir === 'memory' ? 'memory' : resolve(opts.dataDir || '.data');
  const inMemory = dataDir === 'memory';
  const tableName = opts.tableName ?? 'outbound';
  const log = createLogger(opts.sink, {}, opts.logLevel);
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch((err) => log.error('stop step failed', { err }));
  };

  try {
    if (!inMemory) {
      // The data directory holds the table and the master key: only this user may enter it.
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      await chmod(dataDir, 0o700);
    }
    let dynamo: DynamoLocal | undefined;
    if (opts.dynamoEndpoint && !opts.dynamoCredentials)
      throw new Error('dynamoEndpoint needs dynamoCredentials: the ones that DynamoDB Local was started with.');
    if (!opts.dynamoEndpoint) {
      dynamo = await startDynamoLocal(inMemory ? 'memory' : join(dataDir, 'dynamodb'));
      cleanups.push(() => dynamo!.stop());
    }
    const dynamoEndpoint = opts.dynamoEndpoint ?? dynamo!.endpoint;
    const dynamoClient = localDynamoClient(dynamoEndpoint, opts.dynamoCredentials ?? dynamo!.credentials);
    cleanups.push(async () => dynamoClient.destroy());
    await ensureTable(dynamoClient, tableName);

    const kms = await startLocalKms({ dataDir: inMemory ? 'memory' : dataDir });
    cleanups.push(() => kms.stop());
    const kmsClient = new KMSClient({ endpoint: kms.endpoint, region: 'us-east-1', credentials: kms.credentials });
    cleanups.push(async () => kmsClient.destroy());

    const sqs = await startSqsLocal();
    cleanups.push(() => sqs.stop());

    const wallClock = opts.wallClock ?? systemClock;
    const timeScale = opts.timeScale ?? 1;
    // Stored CSVs start the import worker, as S3's event does on AWS; set once the engine serves (see below).
    let onStored: (key: string) => void = () => {};
    let url = '';
    const blobs = localBlobs({ dir: inMemory ? 'memory' : join(dataDir, 'uploads'), baseUrl: () => url, onStored: (key) => onStored(key) });
    const deps: Deps = buildDeps(
      {
        blobs,
        store: new DynamoStore(dynamoClient, tableName),
        keys: new KmsKeyProvider({ client: kmsClient, keyId: kms.keyId }),
        queue: new SqsSendQueue({ client: sqs.client, queueUrl: sqs.urls.send!, timeScale }),
        webhookQueue: new SqsWebhookQueue({ client: sqs.client, queueUrl: sqs.urls.webhooks!, timeScale }),
        // A receiver on this machine is how a webhook is tried out locally; private and metadata addresses stay refused.
        webhookPoster: webhookPoster({ allowLoopback: true }),
        clock: opts.clock ?? (await engineClock(inMemory ? 'memory' : dataDir, timeScale, wallClock)),
        wallClock,
        log,
        config: {
          publicBaseUrl: opts.publicBaseUrl ?? `http://localhost:${opts.port ?? 3000}`,
          rateLimits: opts.rateLimits ?? true,
          dnsServers: opts.dnsServers,
          timeScale,
          oauth: opts.oauth ?? {},
          importAnswerWithinMs: opts.importAnswerWithinMs,
        },
        openaiBaseUrl: opts.openaiBaseUrl,
        anthropicBaseUrl: opts.anthropicBaseUrl,
        random: opts.random,
      },
      [mailKit, aiKit],
    );
    cleanups.push(() => deps.mailer.close());
    // A table on disk may hold work a killed run left: the store is warm before the engine answers, so that work resumes at once.
    if (!inMemory) await warmStore(deps.store);

    if (opts.admin) {
      const { created } = await users.upsert(deps, opts.admin);
      log.info(created ? 'engine user created' : 'engine user password reset', { email: opts.admin.email.toLowerCase() });
    }

    const handlers = new Map<FunctionName, Promise<LambdaHandler>>();
    const load = (fn: FunctionName) => {
      let h = handlers.get(fn);
      if (!h) {
        const path = functions[fn].handler.replace(/\.ts$/, '');
        h = import(`@outbound/functions/${path}`).then((m) => {
          const inner = m.handler as LambdaHandler;
          // Each function gets what its manifest entry (and so its AWS role) allows, no more.
          const own = restrictTo(deps, fn, functions[fn]);
          return ((event, context) => withDeps(own, () => inner(event, context))) as LambdaHandler;
        });
        handlers.set(fn, h);
      }
      return h;
    };
    // Names the engine answers to besides IP addresses and localhost: the one it was told to listen on, and its public address.
    const names = [host, ...(deps.config.publicBaseUrl ? [new URL(deps.config.publicBaseUrl).hostname] : [])].map((n) => n.toLowerCase());
    const http = createHttpAdapter(load, (req, res) => blobs.serveUpload(req, res), { hostNames: names });
    await new Promise<void>((ok, fail) => {
      http.server.once('error', fail);
      http.server.listen(opts.port ?? 3000, host, () => ok());
    });
    const port = (http.server.address() as AddressInfo).port;
    url = `http://${host}:${port}`;
    if (opts.publicBaseUrl === undefined) deps.config.publicBaseUrl = `http://localhost:${port}`;
    cleanups.push(() => http.drain());

    // A stored file starts the import worker with the event S3 sends on AWS; it runs beside the request that stored it.
    const workerFn = Object.entries(functions).find(([, f]) => (f as { onStored?: string }).onStored === 'uploads')![0] as FunctionName;
    onStored = (key) => {
      const timeoutMs = ((functions[workerFn] as { timeoutSeconds?: number }).timeoutSeconds ?? 29) * 1000;
      void load(workerFn)
        .then((h) =>
          h({ Records: [{ s3: { object: { key: encodeURIComponent(key) } } }] } as never, lambdaContext(workerFn, randomUUID(), timeoutMs)),
        )
        .catch((err) => log.error('import worker failed', { key, err }));
    };

    // The sender drains the queue as Lambda's event source would; the schedules run on timers.
    if (opts.sending !== false) {
      const consumerOf = (queue: string) =>
        Object.entries(functions).find(([, f]) => (f as { consumes?: string }).consumes === queue)![0] as FunctionName;
      const sender = (await load(consumerOf('send'))) as unknown as Parameters<typeof startQueueConsumer>[0]['handler'];
      const consumer = startQueueConsumer({
        client: sqs.client,
        queueUrl: sqs.urls.send!,
        handler: sender,
        log,
        waitSeconds: 1,
        concurrency: SENDER_CONCURRENCY,
      });
      cleanups.push(() => consumer.stop());
      // Webhook deliveries have their own consumer: a receiver that is slow to answer never holds a send back.
      const deliverer = (await load(consumerOf('webhooks'))) as unknown as Parameters<typeof startQueueConsumer>[0]['handler'];
      const deliveries = startQueueConsumer({
        client: sqs.client,
        queueUrl: sqs.urls.webhooks!,
        handler: deliverer,
        log,
        waitSeconds: 1,
        concurrency: 2,
      });
      cleanups.push(() => deliveries.stop());

      const scheduled = Object.entries(schedules).map(([name, s]) => {
        const run = async (event: Record<string, unknown> = {}) => {
          const h = (await load(s.fn)) as unknown as (e: unknown) => Promise<unknown>;
          await h({ source: 'local.schedule', 'detail-type': name, ...event });
        };
        // A scaled schedule runs TIME_SCALE times as often, but never more than 4 times a second.
        const everyMs = Math.max(250, (s.everyMinutes * 60_000) / (s.scaled ? timeScale : 1));
        const timeoutSeconds = (functions[s.fn] as { timeoutSeconds?: number }).timeoutSeconds ?? 29;
        let running = false;
        let startedAt = 0;
        let warned = false;
        const tick = (event?: Record<string, unknown>) => {
          if (running) {
            // Lambda ends a run at its function's timeout; here nothing does, so a run that outlives it (a request never
            // answered) says so once, instead of silently holding every later run of its schedule back.
            const seconds = Math.round((Date.now() - startedAt) / 1000);
            if (seconds > timeoutSeconds && !warned) {
              warned = true;
              log.warn(`schedule ${name} has been running for ${seconds} s; its next runs wait for it`, { schedule: name });
            }
            return;
          }
          running = true;
          startedAt = Date.now();
          warned = false;
          run(event)
            .catch((err) => log.error('schedule failed', { schedule: name, err }))
            .finally(() => (running = false));
        };
        return { name, tick, timer: setInterval(tick, everyMs), idle: () => waitUntil(() => !running) };
      });
      // Start-up recovery: the local queue kept nothing, so every job the table says is queued is queued again.
      scheduled.find((s) => s.name === 'dispatch')?.tick({ requeueAll: true });
      // Imports a killed engine was storing go on once its hold ends (15 s at most).
      scheduled.find((s) => s.name === 'imports')?.tick({ waitForHolds: true });
      // Webhook deliveries owed before a stop are queued again at once (fauxqs kept none of their messages).
      scheduled.find((s) => s.name === 'webhooks')?.tick({ requeueAll: true });
      // Timers stop first (no new work), then in-flight ticks finish.
      cleanups.push(async () => {
        scheduled.forEach((s) => clearInterval(s.timer));
        await Promise.all(scheduled.map((s) => s.idle()));
      });
    }

    if (!inMemory) {
      const info = join(dataDir, 'engine.json');
      await writeFile(info, JSON.stringify({ pid: process.pid, url, dynamoEndpoint, tableName }), { mode: 0o600 });
      cleanups.unshift(async () => rm(info, { force: true }));
    }

    return { url, deps, log, clients: { dynamo: dynamoClient, kms: kmsClient }, inFlight: http.inFlight, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
