import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { S3Blobs } from '@outbound/aws/s3-blobs';
import { SqsSendQueue } from '@outbound/aws/sqs-queue';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { KmsKeyProvider } from '@outbound/aws/kms-keys';
import { emfMetrics } from '@outbound/aws/emf-metrics';
import { noMetrics, type Metrics } from '@outbound/core/ports/metrics';
import { sharedSettingsFromEnv } from '@outbound/core/config';
import { systemClock, type Clock } from '@outbound/core/ports/clock';
import { createLogger, jsonSink, type Fields, type Logger } from '@outbound/core/log';
import type { Context } from 'aws-lambda';
import type { Deps, EngineConfig } from '@outbound/core/deps';
import type { KeyProvider } from '@outbound/core/ports/key-provider';
import type { SendQueue } from '@outbound/core/ports/queue';
import type { Store } from '@outbound/core/ports/store';
import type { Blobs } from '@outbound/core/ports/blobs';
import { aiWriter } from '@outbound/mail/ai';
import { signInChecker } from '@outbound/mail/checker';
import { hostResolver } from '@outbound/mail/dns';
import { dnsResolver } from '@outbound/mail/dns-resolver';
import { smtpMailer } from '@outbound/mail/mailer';
import { oauthClient } from '@outbound/mail/oauth-client';
import { imapReader } from '@outbound/mail/sent-folder';
import { z } from 'zod';

/** Wait per SMTP phase, and per AI attempt (two attempts): see the sender's budgets. */
export const SMTP_PHASE_TIMEOUT_MS = 10_000;
export const AI_TIMEOUT_MS = 15_000;

/** What differs between AWS and the local runtime: where the table, the keys and the queue are, and the clocks. */
export interface Platform {
  store: Store;
  keys: KeyProvider;
  queue: SendQueue;
  blobs: Blobs;
  clock: Clock;
  wallClock: Clock;
  log: Logger;
  config: EngineConfig;
  openaiBaseUrl?: string;
  anthropicBaseUrl?: string;
  random?: () => number;
  /** Counts for dashboards and alarms; none locally. */
  metrics?: Metrics;
}

/**
 * The one place adapters are plugged into ports, for Lambda and the local
 * runtime alike: the mail, DNS, AI and OAuth adapters are the same on both,
 * and every lookup they make goes through DNS_SERVERS when it is set.
 */
export function buildDeps(p: Platform): Deps {
  const resolver = hostResolver(p.config.dnsServers);
  return {
    store: p.store,
    keys: p.keys,
    queue: p.queue,
    blobs: p.blobs,
    clock: p.clock,
    wallClock: p.wallClock,
    log: p.log,
    config: p.config,
    signIn: signInChecker(p.config.dnsServers),
    // Each SMTP phase (connect, greeting, every command) waits 10 s at most; the AI writes in 15 s, tried twice:
    // a send fits the sender's budgets (sending/sender.ts: 40 s for SMTP, 35 s for AI) inside the Lambda's 90 s.
    mailer: smtpMailer({ resolver, log: p.log, timeoutMs: SMTP_PHASE_TIMEOUT_MS }),
    mailReader: imapReader({ resolver }),
    ai: aiWriter({ openaiBaseUrl: p.openaiBaseUrl, anthropicBaseUrl: p.anthropicBaseUrl, timeoutMs: AI_TIMEOUT_MS, maxRetries: 1 }),
    oauth: oauthClient({ now: () => p.wallClock.now() }),
    random: p.random ?? Math.random,
    dns: dnsResolver({ servers: p.config.dnsServers }),
    metrics: p.metrics ?? noMetrics,
  };
}

let lambdaDeps: Deps | undefined;
const scoped = new AsyncLocalStorage<Deps>();
/** The invocation a log line belongs to, on AWS: its request id, whether it started a cold environment, the function. */
const invocation = new AsyncLocalStorage<Fields>();
let coldStart = true;

/**
 * Runs one Lambda invocation (every entry point goes through it, with
 * `lambda(run)` or, for HTTP, httpHandler): the log
 * lines it writes on AWS carry `awsRequestId`, `coldStart` and `functionName`,
 * so CloudWatch Logs Insights finds one invocation's lines and cold starts.
 */
export function lambda<E, R>(run: (event: E, context?: Partial<Context>) => Promise<R>) {
  // The event may be left out, as a schedule's is in a test: each entry point gives its own default.
  return (event?: E, context?: Partial<Context>): Promise<R> => inInvocation(context, () => run(event as E, context));
}

export function inInvocation<T>(context: Partial<Pick<Context, 'awsRequestId' | 'functionName'>> | undefined, fn: () => T): T {
  const fields = { awsRequestId: context?.awsRequestId, coldStart, functionName: context?.functionName };
  coldStart = false;
  return invocation.run(fields, fn);
}

/**
 * Runs `fn` with `deps` as the handlers' deps. The local runtime wraps every
 * invocation in it, so two engines in one process (tests) never share deps.
 */
export function withDeps<T>(deps: Deps, fn: () => T): T {
  return scoped.run(deps, fn);
}

export function getDeps(): Deps {
  return scoped.getStore() ?? (lambdaDeps ??= fromLambdaEnvironment(process.env));
}

/** What only Lambda reads: the resources SST links to each function. */
const LambdaEnv = z.object({
  TABLE_NAME: z.string({ error: 'is not set' }).min(1, { error: 'is not set' }),
  KMS_KEY_ID: z.string({ error: 'is not set' }).min(1, { error: 'is not set' }),
  QUEUE_URL_SEND: z.string({ error: 'is not set' }).min(1, { error: 'is not set' }),
  UPLOADS_BUCKET: z.string({ error: 'is not set' }).min(1, { error: 'is not set' }),
});

/** Configuration is read once, here, and validated by the same schema as the local runtime's; core never reads process.env. */
export function fromLambdaEnvironment(env: NodeJS.ProcessEnv): Deps {
  const parsed = LambdaEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`The environment variable ${String(issue.path[0])} ${issue.message}.`);
  }
  const shared = sharedSettingsFromEnv(env);
  return buildDeps({
    store: new DynamoStore(new DynamoDBClient({}), parsed.data.TABLE_NAME),
    keys: new KmsKeyProvider({ client: new KMSClient({}), keyId: parsed.data.KMS_KEY_ID }),
    queue: new SqsSendQueue({ client: new SQSClient({}), queueUrl: parsed.data.QUEUE_URL_SEND }),
    blobs: new S3Blobs(new S3Client({}), parsed.data.UPLOADS_BUCKET),
    clock: systemClock,
    wallClock: systemClock,
    log: createLogger((line) => jsonSink({ ...line, ...invocation.getStore() }), {}, shared.logLevel),
    config: { ...shared.config, publicBaseUrl: shared.config.publicBaseUrl ?? '', timeScale: 1 },
    openaiBaseUrl: shared.openaiBaseUrl,
    anthropicBaseUrl: shared.anthropicBaseUrl,
    metrics: emfMetrics({ installation: parsed.data.TABLE_NAME }),
  });
}
