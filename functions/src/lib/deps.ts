import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsSendQueue, SqsWebhookQueue } from '@outbound/aws/sqs-queue';
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
import type { WebhookPoster, WebhookQueue } from '@outbound/core/ports/webhooks';
import type { Store } from '@outbound/core/ports/store';
import type { Blobs } from '@outbound/core/ports/blobs';
import { dnsResolver } from '@outbound/mail/dns-resolver';
import { oauthClient } from '@outbound/mail/oauth-client';
import { webhookPoster } from '@outbound/mail/webhook-poster';
import * as z from 'zod';
import { INSTALL_SECRET_PURPOSE, type FunctionDef, type KitName } from '../manifest.ts';
import { linkedOAuthEnv } from './linked.ts';

/** What differs between AWS and the local runtime: where the table, the keys and the queue are, and the clocks. */
export interface Platform {
  store: Store;
  keys: KeyProvider;
  queue: SendQueue;
  /** Outbound webhooks' delivery queue; on AWS only its consumer has one. */
  webhookQueue?: WebhookQueue;
  /** The local runtime's allows a loopback receiver; on AWS none is allowed. */
  webhookPoster?: WebhookPoster;
  /** The local runtime's blob store; on AWS the uploads kit brings S3. */
  blobs?: Blobs;
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

/** What a kit's adapters are made from. */
export interface KitContext extends Platform {
  env: NodeJS.ProcessEnv;
}

/**
 * A group of adapters with heavy libraries (SMTP and IMAP, the AI SDKs, S3).
 * A Lambda's handler names the kits it uses, so its bundle carries those and
 * no others (a group that never sends mail carries no mail library); the
 * manifest says the same, and the local runtime holds every function to it.
 */
export interface Kit {
  name: KitName;
  make(c: KitContext): Partial<Deps>;
}

/** The ports each kit fills (the mail kit's mailer is the smtp kit's). */
const PORTS: Record<KitName, (keyof Deps)[]> = {
  mail: ['signIn', 'mailer', 'mailReader'],
  smtp: ['mailer'],
  ai: ['ai'],
  uploads: ['blobs'],
};

/** Every port a kit fills, with the kits that fill it. */
const KITS_OF = new Map<keyof Deps, KitName[]>();
for (const [kit, ports] of Object.entries(PORTS) as [KitName, (keyof Deps)[]][])
  for (const port of ports) KITS_OF.set(port, [...(KITS_OF.get(port) ?? []), kit]);

/** A port the function was built without: any use says which kit its handler must name. */
function unavailable(port: string, what: string): never {
  const fail = () => {
    throw new Error(`${port} is not available in this function: ${what}.`);
  };
  return new Proxy({}, { get: (_t, prop) => (prop === 'then' ? undefined : fail) }) as never;
}

/**
 * The one place adapters are plugged into ports, for Lambda and the local
 * runtime alike: the store, keys, queue, DNS and OAuth adapters always, the
 * kits' adapters when named (the local runtime names them all).
 */
export function buildDeps(p: Platform, kits: readonly Kit[], env: NodeJS.ProcessEnv = {}): Deps {
  const made: Partial<Deps> = Object.assign({}, ...kits.map((k) => k.make({ ...p, env })));
  const missing = [...KITS_OF].map(([port, by]) => [
    port,
    unavailable(port, `its handler names no ${by.join(' or ')} kit (functions/src/lib/kits)`),
  ]);
  return {
    ...Object.fromEntries(missing),
    ...made,
    ...(p.blobs ? { blobs: p.blobs } : {}),
    store: p.store,
    keys: p.keys,
    queue: p.queue,
    webhookQueue: p.webhookQueue ?? unavailable('webhookQueue', 'no webhook delivery queue was given'),
    webhookPoster: p.webhookPoster ?? webhookPoster({ allowLoopback: false }),
    clock: p.clock,
    wallClock: p.wallClock,
    log: p.log,
    config: p.config,
    oauth: oauthClient({ now: () => p.wallClock.now() }),
    random: p.random ?? Math.random,
    dns: dnsResolver({ servers: p.config.dnsServers }),
    metrics: p.metrics ?? noMetrics,
  } as Deps;
}

const restricted = new WeakMap<Deps, Map<string, Deps>>();

/**
 * What one function may touch, as its manifest entry says and its AWS role
 * allows: the kits it names, the send queue only if it enqueues, and KMS
 * sealing and opening only for the purposes it seals and opens (and the installation's own
 * secrets, which whichever function first needs one makes). The local
 * runtime runs every handler through this, so a function that reaches
 * further than its entry fails in the tests, not in a customer's account.
 */
export function restrictTo(deps: Deps, name: string, def: FunctionDef): Deps {
  let byName = restricted.get(deps);
  if (!byName) restricted.set(deps, (byName = new Map()));
  let view = byName.get(name);
  if (view) return view;
  const uses = new Set(def.uses ?? []);
  const sealable = new Set<string>([INSTALL_SECRET_PURPOSE, ...(def.seals ?? [])]);
  const openable = new Set<string>([INSTALL_SECRET_PURPOSE, ...(def.opens ?? [])]);
  // As KMS holds the role to installSecrets by the context's name: an installation secret not listed is refused.
  const unlisted = (context: Record<string, string>) =>
    context.purpose === INSTALL_SECRET_PURPOSE &&
    def.installSecrets !== undefined &&
    !(def.installSecrets as string[]).includes(context.name ?? '');
  const keys: KeyProvider = {
    generateDataKey: (context) =>
      sealable.has(context.purpose ?? '') && !unlisted(context)
        ? deps.keys.generateDataKey(context)
        : Promise.reject(
            new Error(
              `The ${name} function may not seal a ${context.purpose} secret${context.name ? ` named ${context.name}` : ''}: its manifest entry does not list it.`,
            ),
          ),
    decryptDataKey: (ciphertext, context) =>
      openable.has(context.purpose ?? '') && !unlisted(context)
        ? deps.keys.decryptDataKey(ciphertext, context)
        : Promise.reject(
            new Error(
              `The ${name} function may not open a ${context.purpose} secret${context.name ? ` named ${context.name}` : ''}: its manifest entry does not list it.`,
            ),
          ),
  };
  view = { ...deps, keys };
  for (const [port, by] of KITS_OF) {
    if (by.some((kit) => uses.has(kit))) continue;
    Object.assign(view, { [port]: unavailable(port, `the ${name} function's manifest entry names no ${by.join(' or ')} kit`) });
  }
  if (!def.enqueues) view.queue = unavailable('queue', `the ${name} function's manifest entry does not say it enqueues`);
  if (def.consumes !== 'webhooks')
    view.webhookQueue = unavailable('webhookQueue', `the ${name} function does not consume the webhooks queue`);
  byName.set(name, view);
  return view;
}

let lambdaDeps: Deps | undefined;
const scoped = new AsyncLocalStorage<Deps>();
/**
 * The invocation running: what its log lines carry on AWS (its request id,
 * whether it started a cold environment, the function) and the kits its
 * handler names.
 */
const invocation = new AsyncLocalStorage<{ fields: Fields; kits: readonly Kit[] }>();
let coldStart = true;

/**
 * Runs one Lambda invocation (every entry point goes through it, with
 * `lambda(run, kits)` or, for HTTP, httpHandler): the log lines it writes on
 * AWS carry `awsRequestId`, `coldStart` and `functionName`, so CloudWatch
 * Logs Insights finds one invocation's lines and cold starts.
 */
export function lambda<E, R>(run: (event: E, context?: Partial<Context>) => Promise<R>, kits: readonly Kit[] = []) {
  // The event may be left out, as a schedule's is in a test: each entry point gives its own default.
  const handler = (event?: E, context?: Partial<Context>): Promise<R> => inInvocation(context, () => run(event as E, context), kits);
  return Object.assign(handler, { kits: kits.map((k) => k.name) });
}

export function inInvocation<T>(
  context: Partial<Pick<Context, 'awsRequestId' | 'functionName'>> | undefined,
  fn: () => T,
  kits: readonly Kit[] = [],
): T {
  const fields = { awsRequestId: context?.awsRequestId, coldStart, functionName: context?.functionName };
  coldStart = false;
  return invocation.run({ fields, kits }, fn);
}

/**
 * Runs `fn` with `deps` as the handlers' deps. The local runtime wraps every
 * invocation in it, so two engines in one process (tests) never share deps.
 */
export function withDeps<T>(deps: Deps, fn: () => T): T {
  return scoped.run(deps, fn);
}

export function getDeps(): Deps {
  return scoped.getStore() ?? (lambdaDeps ??= fromLambdaEnvironment(process.env, invocation.getStore()?.kits ?? []));
}

const required = z.string({ error: 'is not set' }).min(1, { error: 'is not set' });

/** What only Lambda reads: the resources SST links to each function (the queue only to those that enqueue). */
const LambdaEnv = z.object({
  TABLE_NAME: required,
  KMS_KEY_ID: required,
  QUEUE_URL_SEND: z.string().optional(),
  QUEUE_URL_WEBHOOKS: z.string().optional(),
});

/** Configuration is read once, here, and validated by the same schema as the local runtime's; core never reads process.env. */
export function fromLambdaEnvironment(env: NodeJS.ProcessEnv, kits: readonly Kit[] = []): Deps {
  const parsed = LambdaEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`The environment variable ${String(issue.path[0])} ${issue.message}.`);
  }
  // The OAuth apps come linked (stacks/index.ts), not in the environment.
  const shared = sharedSettingsFromEnv({ ...env, ...linkedOAuthEnv() });
  const queueUrl = parsed.data.QUEUE_URL_SEND;
  return buildDeps(
    {
      store: new DynamoStore(new DynamoDBClient({}), parsed.data.TABLE_NAME),
      keys: new KmsKeyProvider({ client: new KMSClient({}), keyId: parsed.data.KMS_KEY_ID }),
      queue: queueUrl
        ? new SqsSendQueue({ client: new SQSClient({}), queueUrl })
        : unavailable('queue', 'QUEUE_URL_SEND is not set for this function'),
      ...(parsed.data.QUEUE_URL_WEBHOOKS
        ? { webhookQueue: new SqsWebhookQueue({ client: new SQSClient({}), queueUrl: parsed.data.QUEUE_URL_WEBHOOKS }) }
        : {}),
      clock: systemClock,
      wallClock: systemClock,
      log: createLogger((line) => jsonSink({ ...line, ...invocation.getStore()?.fields }), {}, shared.logLevel),
      config: { ...shared.config, publicBaseUrl: shared.config.publicBaseUrl ?? '', timeScale: 1 },
      openaiBaseUrl: shared.openaiBaseUrl,
      anthropicBaseUrl: shared.anthropicBaseUrl,
      metrics: emfMetrics({ installation: parsed.data.TABLE_NAME }),
    },
    kits,
    env,
  );
}
