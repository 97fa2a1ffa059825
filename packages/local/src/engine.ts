import { KMSClient } from '@aws-sdk/client-kms';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { KmsKeyProvider } from '@outbound/aws/kms-keys';
import { scaledClock, systemClock, type Clock } from '@outbound/core/ports/clock';
import type { Deps } from '@outbound/core/deps';
import { createLogger, type Logger, type Sink } from '@outbound/core/log';
import * as users from '@outbound/core/user/index';
import { functions, schedules, type FunctionName } from '@outbound/functions/manifest';
import { withDeps } from '@outbound/functions/lib/deps';
import { signInChecker } from '@outbound/mail/checker';
import { ensureTable, localDynamoClient, startDynamoLocal, type DynamoLocal } from './dynamo-local.ts';
import { createHttpAdapter, type LambdaHandler } from './http-adapter.ts';
import { startLocalKms } from './kms-server.ts';
import { localCredentials } from './net.ts';
import { startSqsLocal } from './sqs-local.ts';

export interface EngineOptions {
  port?: number;
  host?: string;
  /** A folder, or 'memory' to keep nothing. */
  dataDir?: string;
  tableName?: string;
  /** Use a DynamoDB Local that is already running (tests share one) instead of starting one. */
  dynamoEndpoint?: string;
  admin?: { email: string; password: string };
  /** '' for an installation without a domain for the built-in unsubscribe page. */
  publicBaseUrl?: string;
  timeScale?: number;
  rateLimits?: boolean;
  /** DNS_SERVERS: every lookup goes to these `host:port` servers. */
  dnsServers?: string[];
  sink?: Sink;
  /** Tests replace the clocks to move time without sleeping. */
  clock?: Clock;
  wallClock?: Clock;
}

export interface Engine {
  url: string;
  deps: Deps;
  log: Logger;
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
  const log = createLogger(opts.sink);
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch((err) => log.error('stop step failed', { err }));
  };

  try {
    if (!inMemory) await mkdir(dataDir, { recursive: true });
    let dynamo: DynamoLocal | undefined;
    if (!opts.dynamoEndpoint) {
      dynamo = await startDynamoLocal(inMemory ? 'memory' : join(dataDir, 'dynamodb'));
      cleanups.push(() => dynamo!.stop());
    }
    const dynamoEndpoint = opts.dynamoEndpoint ?? dynamo!.endpoint;
    const dynamoClient = localDynamoClient(dynamoEndpoint);
    cleanups.push(async () => dynamoClient.destroy());
    await ensureTable(dynamoClient, tableName);

    const kms = await startLocalKms({ dataDir: inMemory ? 'memory' : dataDir });
    cleanups.push(() => kms.stop());
    const kmsClient = new KMSClient({ endpoint: kms.endpoint, region: 'us-east-1', credentials: localCredentials });
    cleanups.push(async () => kmsClient.destroy());

    const sqs = await startSqsLocal();
    cleanups.push(() => sqs.stop());

    const wallClock = opts.wallClock ?? systemClock;
    const deps: Deps = {
      store: new DynamoStore(dynamoClient, tableName),
      keys: new KmsKeyProvider({ client: kmsClient, keyId: kms.keyId }),
      clock: opts.clock ?? scaledClock(opts.timeScale ?? 1, wallClock),
      wallClock,
      log,
      config: {
        publicBaseUrl: opts.publicBaseUrl ?? `http://localhost:${opts.port ?? 3000}`,
        rateLimits: opts.rateLimits ?? true,
        dnsServers: opts.dnsServers,
      },
      signIn: signInChecker(opts.dnsServers),
    };

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
          return ((event, context) => withDeps(deps, () => inner(event, context))) as LambdaHandler;
        });
        handlers.set(fn, h);
      }
      return h;
    };
    const http = createHttpAdapter(load);
    await new Promise<void>((ok, fail) => {
      http.server.once('error', fail);
      http.server.listen(opts.port ?? 3000, host, () => ok());
    });
    const port = (http.server.address() as AddressInfo).port;
    const url = `http://${host}:${port}`;
    if (opts.publicBaseUrl === undefined) deps.config.publicBaseUrl = `http://localhost:${port}`;
    cleanups.push(() => http.drain());

    const timers = Object.entries(schedules).map(([name, s]) => {
      const everyMs = (s.everyMinutes * 60_000) / (s.scaled ? (opts.timeScale ?? 1) : 1);
      return setInterval(() => {
        void load(s.fn)
          .then((h) => (h as unknown as (e: unknown) => Promise<unknown>)({ source: 'local.schedule', 'detail-type': name }))
          .catch((err) => log.error('schedule failed', { schedule: name, err }));
      }, everyMs);
    });
    // Timers stop first (no new work), then the HTTP adapter drains, then the stand-ins go.
    cleanups.push(async () => timers.forEach(clearInterval));

    if (!inMemory) {
      const info = join(dataDir, 'engine.json');
      await writeFile(info, JSON.stringify({ pid: process.pid, url, dynamoEndpoint, tableName }), { mode: 0o600 });
      cleanups.unshift(async () => rm(info, { force: true }));
    }

    return { url, deps, log, inFlight: http.inFlight, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
