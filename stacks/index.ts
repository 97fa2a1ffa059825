import {
  allRoutes,
  buckets,
  catchAllFunction,
  functions,
  INSTALL_SECRET_PURPOSE,
  OAUTH_SECRETS,
  queues,
  routeKey,
  schedules,
  table as tableDef,
  type FunctionDef,
} from '../functions/src/manifest.ts';
import { NAMESPACE } from '../packages/aws/src/emf-metrics.ts';
import type { Fn, FunctionArgs, Output, Permission, Platform, StageTransform } from './platform.ts';

/** What an operator chooses at deploy time (docs/deploy.md): read from the environment by sst.config.ts. */
export interface DeployOptions {
  /** The API's own host name (api.example.com): unsubscribe links and OAuth redirects carry it. */
  domain?: string;
  /** An ACM certificate for `domain` when its DNS is not a Route 53 zone of this account. */
  domainCertArn?: string;
  /** Who the alarms write to; without it they still show in CloudWatch. */
  alarmEmail?: string;
  /** DNS_SERVERS for the functions: resolvers the blocklists answer (AWS's shared one is refused by Spamhaus and URIBL). */
  dnsServers?: string;
  logLevel?: string;
}

/** Only production keeps its table on `sst remove` and refuses its deletion (sst.config.ts sets `removal` alike). */
export const isProduction = (stage: string) => stage === 'production';

/** What Lambda's SQS poller calls with the consumer's role. */
export const SQS_CONSUME = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ChangeMessageVisibility'] as const;

/** Lambda runtime: Node 24 (Lambda's Node 22 support ends on 2027-04-30; SST maps it to an es2024 build). */
export const RUNTIME = 'nodejs24.x';

/**
 * The stage's default route limits. API Gateway keeps a bucket per route, so
 * every authenticated route has 50 requests a second, bursts of 100, of its own.
 */
export const API_THROTTLE = { throttlingRateLimit: 50, throttlingBurstLimit: 100 };

/**
 * Each public route's own, lower limits (and the catch-all's): anyone can send
 * these, so a flood on all of them at once (ten keys today) reaches about 5
 * requests a second each of Lambda, which leaves the account's concurrency to
 * the signed-in API and the sender. The engine's own per-address limits stay far below (a login
 * 10 a minute, the webhook 30).
 */
export const PUBLIC_THROTTLE = { throttlingRateLimit: 5, throttlingBurstLimit: 10 };

/** The route keys that need no token: the manifest's public routes and API Gateway's catch-all. */
export const publicRouteKeys = (): string[] => [
  ...allRoutes()
    .filter((r) => r.public)
    .map((r) => r.key),
  '$default',
];

/**
 * The `$default` stage's throttle, as a transform of the stage SST makes:
 * the default for every route, and a setting of its own for each public one.
 * AWS refuses a setting for a route key the API does not have yet, and SST
 * makes the stage in the API's constructor, before any route: so the stage
 * also depends on the public routes, which `routes` resolves to once they are
 * made, and Pulumi creates (or updates) it after them, and deletes it before.
 */
export const stageThrottle =
  (routes: Promise<Output[]>): StageTransform =>
  (args, opts) => {
    args.defaultRouteSettings = API_THROTTLE;
    args.routeSettings = publicRouteKeys().map((routeKey) => ({ routeKey, ...PUBLIC_THROTTLE }));
    opts.dependsOn = [...(opts.dependsOn === undefined ? [] : [opts.dependsOn].flat()), routes];
  };

/**
 * Maps the one manifest onto AWS: the table, the KMS key, the queues, one
 * Lambda per function group (every route of a group points at it), the
 * schedules, and the alarms. Nothing here is a rule of the engine; it only
 * places the pieces, and gives each function only what its manifest entry
 * says it uses.
 */
export function deploy(p: Platform, opts: DeployOptions = {}) {
  const table = new p.Dynamo('Table', {
    fields: Object.fromEntries(
      [tableDef.partitionKey, tableDef.sortKey, ...Object.values(tableDef.indexes).flatMap((i) => [i.partitionKey, i.sortKey])].map((f) => [
        f,
        'string' as const,
      ]),
    ),
    primaryIndex: { hashKey: tableDef.partitionKey, rangeKey: tableDef.sortKey },
    globalIndexes: Object.fromEntries(
      Object.entries(tableDef.indexes).map(([name, i]) => [name, { hashKey: i.partitionKey, rangeKey: i.sortKey }]),
    ),
    ttl: tableDef.ttlAttribute,
    // Leads, suppressions and sealed secrets live here: restorable to any second of the last 35 days. Production's is
    // not deletable by accident (sst.config.ts also retains it); any other stage must come down with `sst remove`.
    transform: { table: { pointInTimeRecovery: { enabled: true }, deletionProtectionEnabled: isProduction(p.stage) } },
  });

  const key = new p.KmsKey('Secrets', {
    description: `Outbound (${p.stage}): envelope key for mailbox passwords, OAuth tokens, AI keys and the installation's secrets`,
    enableKeyRotation: true,
  });

  const dlq = new p.Queue('SendDlq');
  const send = new p.Queue('Send', {
    visibilityTimeout: `${queues.send.visibilityTimeoutSeconds} seconds`,
    dlq: { queue: dlq.arn, retry: queues.send.maxReceiveCount },
  });

  // Outbound webhook attempts: their own queue, so a receiver that is down never holds a send back.
  const webhooksDlq = new p.Queue('DeliveriesDlq');
  const webhooks = new p.Queue('Deliveries', {
    visibilityTimeout: `${queues.webhooks.visibilityTimeoutSeconds} seconds`,
    dlq: { queue: webhooksDlq.arn, retry: queues.webhooks.maxReceiveCount },
  });
  const queueOf = { send, webhooks };

  // Uploaded CSVs wait here for their import (a signed PUT from the client's browser or script, hence CORS for PUT).
  const uploads = new p.Bucket('Uploads', {
    cors: { allowOrigins: ['*'], allowMethods: ['PUT'], allowHeaders: ['content-type', 'content-length'] },
    lifecycle: [{ expiresIn: `${buckets.uploads.expireDays} day${buckets.uploads.expireDays === 1 ? '' : 's'}` }],
  });

  let publicRoutesMade!: (routes: Output[]) => void;
  let publicRoutesFailed!: (err: unknown) => void;
  const publicRoutes = new Promise<Output[]>((resolve, reject) => ((publicRoutesMade = resolve), (publicRoutesFailed = reject)));
  const api = new p.ApiGatewayV2('Api', {
    ...(opts.domain
      ? { domain: { name: opts.domain, ...(opts.domainCertArn ? { cert: opts.domainCertArn, dns: false as const } : {}) } }
      : {}),
    transform: { stage: stageThrottle(publicRoutes) },
  });
  const publicBaseUrl: Output = opts.domain ? `https://${opts.domain}` : api.url;

  // OAuth apps are secrets, empty until set (a provider without them cannot connect). Linked, not put in the environment:
  // a Lambda's environment is plain text to anyone who may read its configuration; linked values travel encrypted.
  const oauth = Object.values(OAUTH_SECRETS).map((name) => new p.Secret(name, ''));

  const args = (name: string, def: FunctionDef): FunctionArgs => {
    const uses = new Set(def.uses ?? []);
    // KMS checks the encryption context's purpose: a function opens and seals only what its manifest entry names,
    // so a public function (unsubscribe, webhook, OAuth callback) cannot open a mailbox password or a refresh token.
    const permissions: Permission[] = [
      ...kmsFor('kms:Decrypt', key.arn, def.opens, def.installSecrets),
      ...kmsFor('kms:GenerateDataKey', key.arn, def.seals, def.installSecrets),
    ];
    if (def.enqueues) permissions.push({ actions: ['sqs:SendMessage'], resources: [send.arn] });
    // What Lambda's poller does with the consumer's role. SST grants it only to functions it makes itself, not to one
    // subscribed by ARN (sst issue #5737), and AWS refuses the event source mapping without it.
    if (def.consumes) permissions.push({ actions: [...SQS_CONSUME], resources: [queueOf[def.consumes].arn] });
    // The webhooks queue's consumer queues its own retries and the sweep's deliveries.
    if (def.consumes === 'webhooks') permissions.push({ actions: ['sqs:SendMessage'], resources: [webhooks.arn] });
    return {
      handler: `functions/src/${def.handler.replace(/\.ts$/, '')}.handler`,
      description: `Outbound ${name}`,
      // Linking grants the table's (and, where used, the bucket's) permissions. Exchanging a code or refreshing a token
      // needs the OAuth apps: the functions that seal refresh tokens are those.
      link: [table, ...(uses.has('uploads') ? [uploads] : []), ...(def.seals?.includes('mailbox-oauth-refresh') ? oauth : [])],
      environment: {
        TABLE_NAME: table.name,
        KMS_KEY_ID: key.arn,
        PUBLIC_BASE_URL: publicBaseUrl,
        ...(def.enqueues ? { QUEUE_URL_SEND: send.url } : {}),
        ...(def.consumes === 'webhooks' ? { QUEUE_URL_WEBHOOKS: webhooks.url } : {}),
        ...(uses.has('uploads') || def.pageUploadsTo ? { UPLOADS_BUCKET: uploads.name } : {}),
        ...(opts.dnsServers ? { DNS_SERVERS: opts.dnsServers } : {}),
        ...(opts.logLevel ? { LOG_LEVEL: opts.logLevel } : {}),
      },
      permissions,
      timeout: `${def.timeoutSeconds ?? 29} seconds`,
      memory: `${def.memoryMb ?? 512} MB`,
      runtime: RUNTIME,
      architecture: 'arm64',
      logging: { retention: '1 month', format: 'json' },
      // The console's function carries its built files: SST loads this file's esbuild plugins for its bundle.
      nodejs: { format: 'esm', minify: true, sourcemap: true, ...(name === 'console' ? { plugins: 'stacks/console-plugin.mjs' } : {}) },
    };
  };

  const made: Record<string, Fn> = {};
  // The stage's settings name the public routes: it waits for them (stageThrottle).
  const publicMade: Record<string, Output> = {};
  const routeTo = (key: string, fn: Fn, isPublic: boolean) => {
    const route = api.route(key, fn.arn);
    if (isPublic) publicMade[key] = route.nodes.route;
  };
  try {
    for (const [name, def] of Object.entries(functions) as [string, FunctionDef][]) {
      const fn = (made[name] = new p.Function(cap(name), args(name, def)));
      for (const r of def.routes ?? []) routeTo(routeKey(r), fn, Boolean(r.public));
      if (def.catchAll) routeTo('$default', fn, true);
      if (def.onStored)
        uploads.notify({
          notifications: [{ name: 'ImportWorker', function: fn.arn, events: ['s3:ObjectCreated:*'], filterPrefix: 'imports/' }],
        });
      if (def.consumes) {
        queueOf[def.consumes].subscribe(fn.arn, {
          batch: { size: 10, partialResponses: true },
          // Bounded where the messages are taken, so a launch waits in the queue instead of being throttled back into it.
          transform: { eventSourceMapping: { scalingConfig: { maximumConcurrency: def.consumerConcurrency ?? 2 } } },
        });
      }
    }
    publicRoutesMade(publicRouteKeys().map((key) => publicMade[key] ?? missing(key)));
  } catch (err) {
    // A stage left waiting for its routes would hold the deploy open for good: it fails with the rest instead.
    publicRoutesFailed(err);
    throw err;
  }

  // SST's component names are one namespace, compared ignoring case: a schedule may not share its function's name.
  for (const [name, s] of Object.entries(schedules)) {
    new p.Cron(`${cap(name)}Schedule`, { schedule: rateExpression(s.everyMinutes), function: made[s.fn]!.arn });
  }

  alarms(p, opts, {
    dlqName: dlq.nodes.queue.name,
    webhooksDlqName: webhooksDlq.nodes.queue.name,
    fns: made,
    apiId: api.nodes.api.id,
    installation: table.name,
  });

  return { api: publicBaseUrl, table: table.name, functions: Object.keys(made) };
}

/** EventBridge's rate expression: the unit is singular for a value of 1 (`rate(1 minute)`), plural otherwise. */
export function rateExpression(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 1) throw new Error(`A schedule runs every whole number of minutes, not ${minutes}.`);
  if (minutes % 60 === 0) return `rate(${minutes / 60} ${minutes === 60 ? 'hour' : 'hours'})`;
  return `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`;
}

/**
 * One KMS action on the key, for the installation's own secrets and the given purposes only; with `installNames`,
 * the installation's secrets of those names only (a second statement, as IAM joins one statement's conditions with AND).
 */
function kmsFor(
  action: 'kms:Decrypt' | 'kms:GenerateDataKey',
  key: Output,
  purposes: readonly string[] = [],
  installNames?: readonly string[],
): Permission[] {
  const purpose = (values: string[]) => ({ test: 'StringEquals', variable: 'kms:EncryptionContext:purpose', values });
  if (!installNames) return [{ actions: [action], resources: [key], conditions: [purpose([INSTALL_SECRET_PURPOSE, ...purposes])] }];
  return [
    {
      actions: [action],
      resources: [key],
      conditions: [
        purpose([INSTALL_SECRET_PURPOSE]),
        { test: 'StringEquals', variable: 'kms:EncryptionContext:name', values: [...installNames] },
      ],
    },
    ...(purposes.length ? [{ actions: [action], resources: [key], conditions: [purpose([...purposes])] }] : []),
  ];
}

/** A metric an alarm watches: namespace, name and dimensions. */
type Metric = [namespace: string, metricName: string, dimensions: Record<string, Output>];

/** When an alarm fires: the statistic over 5-minute periods, above (or at) the threshold, for this many periods running. */
interface When {
  stat: 'Sum' | 'Maximum';
  over: number;
  orEqual?: boolean;
  periods?: number;
}

/** How long before its timeout the poller stops reading (functions/src/schedules/poll.ts): a run that long left mailboxes unread. */
export const POLLER_DEADLINE_MARGIN_S = 30;

/**
 * What an operator is told about (docs/operations.md): any function that
 * throws or is throttled, mail stuck in the dead-letter queue, sends that
 * throw before SMTP, the API answering 5xx, the bounce breaker stopping a
 * campaign's mailbox, and a poller that runs out of time (mailboxes left for
 * the next run, so replies and bounces are seen late).
 */
function alarms(
  p: Platform,
  opts: DeployOptions,
  on: { dlqName: Output; webhooksDlqName: Output; fns: Record<string, Fn>; apiId: Output; installation: Output },
) {
  const topic = new p.Topic('Alarms');
  if (opts.alarmEmail) new p.TopicSubscription('AlarmsEmail', { topic: topic.arn, protocol: 'email', endpoint: opts.alarmEmail });
  const alarm = (name: string, alarmDescription: string, [namespace, metricName, dimensions]: Metric, when: When) =>
    new p.MetricAlarm(name, {
      alarmDescription,
      namespace,
      metricName,
      dimensions,
      statistic: when.stat,
      threshold: when.over,
      comparisonOperator: when.orEqual ? 'GreaterThanOrEqualToThreshold' : 'GreaterThanThreshold',
      period: 300,
      evaluationPeriods: when.periods ?? 1,
      treatMissingData: 'notBreaching',
      alarmActions: [topic.arn],
    });
  const lambda = (fn: Fn, metricName: string): Metric => ['AWS/Lambda', metricName, { FunctionName: fn.name }];
  const outbound = (metricName: string): Metric => [NAMESPACE, metricName, { Installation: on.installation }];

  for (const [name, fn] of Object.entries(on.fns)) {
    alarm(`${cap(name)}Errors`, `The ${name} function threw: see its log lines with level error.`, lambda(fn, 'Errors'), {
      stat: 'Sum',
      over: 0,
    });
    alarm(
      `${cap(name)}Throttles`,
      `The ${name} function was throttled: the account's concurrency is used up (docs/deploy.md, Quota).`,
      lambda(fn, 'Throttles'),
      { stat: 'Sum', over: 0 },
    );
  }
  alarm(
    'SendDlqNotEmpty',
    'Messages the sender failed five times wait in the dead-letter queue (docs/deploy.md, Redrive).',
    ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', { QueueName: on.dlqName }],
    { stat: 'Maximum', over: 0 },
  );
  alarm(
    'DeliveriesDlqNotEmpty',
    'Webhook attempts the worker failed five times (the store refusing) wait in their dead-letter queue; the deliveries stay owed in the table and the sweep queues them again.',
    ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', { QueueName: on.webhooksDlqName }],
    { stat: 'Maximum', over: 0 },
  );
  alarm(
    'SendErrors',
    'Sends threw before SMTP (a secret that cannot be opened, the store refusing); a job fails for good after 5.',
    outbound('SendErrors'),
    { stat: 'Sum', over: 0 },
  );
  alarm('Api5xx', 'The API answered 5xx more than 5 times in 5 minutes.', ['AWS/ApiGateway', '5xx', { ApiId: on.apiId }], {
    stat: 'Sum',
    over: 5,
  });
  alarm(
    'BreakerTrips',
    'The bounce breaker stopped a campaign on a mailbox: its bounce rate passed the threshold.',
    outbound('BreakerTrips'),
    { stat: 'Sum', over: 0 },
  );
  const poller = pollerTimeoutSeconds();
  alarm(
    'PollerBehind',
    `The mailbox poller ran into its deadline (${poller - POLLER_DEADLINE_MARGIN_S} s) for 15 minutes: mailboxes wait past their turn, so replies and bounces are seen late.`,
    lambda(on.fns[pollerName()]!, 'Duration'),
    { stat: 'Maximum', over: (poller - POLLER_DEADLINE_MARGIN_S) * 1000, orEqual: true, periods: 3 },
  );
}

const pollerName = () => schedules.poll!.fn;
const pollerTimeoutSeconds = () => (functions[pollerName()] as FunctionDef).timeoutSeconds ?? 29;

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function missing(key: string): never {
  throw new Error(
    `The stage throttles ${key}, a route the API does not have (the manifest's public routes and ${catchAllFunction}'s catch-all).`,
  );
}
