import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { allRoutes, functions, schedules, table as tableDef, type FunctionDef } from '../functions/src/manifest.ts';
import { routeVariables } from '../deploy-rehearsal/src/checks.ts';
import {
  API_THROTTLE,
  deploy,
  POLLER_DEADLINE_MARGIN_S,
  PUBLIC_THROTTLE,
  publicRouteKeys,
  rateExpression,
  RUNTIME,
  SQS_CONSUME,
  type DeployOptions,
} from './index.ts';
import type { Platform, StageTransform } from './platform.ts';

const root = resolve(import.meta.dirname, '..');

/**
 * SST's documented arguments (sst.dev/docs/component/aws/*, unchanged from 3 to 4) and the Pulumi
 * AWS provider's, as strict schemas: an argument the stacks pass that the
 * component does not take, or a value of the wrong shape, fails here instead
 * of at `sst deploy`.
 */
const duration = (maxSeconds: number) =>
  z.string().refine((s) => {
    const m = /^(\d+) (second|seconds|minute|minutes|hour|hours)$/.exec(s);
    if (!m) return false;
    const n = Number(m[1]) * (m[2]!.startsWith('second') ? 1 : m[2]!.startsWith('minute') ? 60 : 3600);
    return n >= 1 && n <= maxSeconds;
  }, 'a duration SST understands');
const Permission = z
  .object({
    actions: z.array(z.string().regex(/^[a-z0-9]+:[A-Za-z*]+$/)).min(1),
    resources: z.array(z.unknown()).min(1),
    conditions: z.array(z.object({ test: z.string(), variable: z.string(), values: z.array(z.string()).min(1) }).strict()).optional(),
  })
  .strict();
const FunctionArgs = z
  .object({
    handler: z
      .string()
      .refine(
        (h) => /^functions\/src\/.+\.handler$/.test(h) && existsSync(resolve(root, h.replace(/\.handler$/, '.ts'))),
        'a handler file that exists',
      ),
    description: z.string().max(256),
    link: z.array(z.unknown()),
    environment: z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/), z.unknown()),
    permissions: z.array(Permission),
    timeout: duration(900),
    memory: z
      .string()
      .regex(/^\d+ MB$/)
      .refine((m) => parseInt(m) >= 128 && parseInt(m) <= 10240),
    runtime: z.enum(['nodejs20.x', 'nodejs22.x', 'nodejs24.x']),
    architecture: z.enum(['x86_64', 'arm64']),
    logging: z
      .object({
        retention: z.enum(['1 day', '1 week', '2 weeks', '1 month', '3 months', '6 months', '1 year', 'forever']),
        format: z.enum(['json', 'text']),
      })
      .strict(),
    // `plugins`: a file whose export is the esbuild plugins SST's build runs (the console's function carries its files so).
    nodejs: z
      .object({ format: z.enum(['esm', 'cjs']), minify: z.boolean(), sourcemap: z.boolean(), plugins: z.string().optional() })
      .strict(),
  })
  .strict();
const IndexDef = z.object({ hashKey: z.string(), rangeKey: z.string() }).strict();
const DynamoArgs = z
  .object({
    fields: z.record(z.string(), z.enum(['string', 'number', 'binary'])),
    primaryIndex: IndexDef,
    globalIndexes: z.record(z.string(), IndexDef),
    ttl: z.string(),
    transform: z
      .object({
        table: z
          .object({ pointInTimeRecovery: z.object({ enabled: z.boolean() }).strict(), deletionProtectionEnabled: z.boolean() })
          .strict(),
      })
      .strict(),
  })
  .strict();
const QueueArgs = z
  .object({
    visibilityTimeout: duration(12 * 3600),
    dlq: z.object({ queue: z.unknown(), retry: z.number().int().min(1).max(1000) }).strict(),
  })
  .strict()
  .optional();
const SubscribeArgs = z
  .object({
    batch: z.object({ size: z.number().int().min(1).max(10_000), partialResponses: z.boolean() }).strict(),
    // Merged into aws.lambda.EventSourceMapping's arguments; AWS takes a maximumConcurrency of 2 to 1000.
    transform: z
      .object({
        eventSourceMapping: z
          .object({ scalingConfig: z.object({ maximumConcurrency: z.number().int().min(2).max(1000) }).strict() })
          .strict(),
      })
      .strict(),
  })
  .strict();
/** EventBridge's rate syntax: a positive whole value, and the singular unit for a value of 1 (anything else fails the deploy). */
const RATE = /^rate\((?:1 (?:minute|hour|day)|(?:[2-9]|[1-9]\d+) (?:minutes|hours|days))\)$/;
const CronArgs = z.object({ schedule: z.string().regex(RATE), function: z.unknown() }).strict();
const ApiArgs = z
  .object({
    domain: z
      .object({ name: z.string(), cert: z.string().optional(), dns: z.literal(false).optional() })
      .strict()
      .optional(),
    // SST calls a function transform with the stage's arguments and resource options to change in place.
    transform: z
      .object({ stage: z.custom<StageTransform>((t) => typeof t === 'function', 'a function SST calls with the stage’s arguments') })
      .strict(),
  })
  .strict();
/** aws.apigatewayv2.Stage's throttling settings (Pulumi AWS provider): a route's key, a rate and a whole burst. */
const Throttle = { throttlingRateLimit: z.number().positive(), throttlingBurstLimit: z.number().int().positive() };
const StageThrottleArgs = z
  .object({
    defaultRouteSettings: z.object(Throttle).strict(),
    routeSettings: z.array(z.object({ routeKey: z.string().regex(/^(\$default|[A-Z]+ \/\S*)$/), ...Throttle }).strict()).min(1),
  })
  .passthrough();
const AlarmArgs = z
  .object({
    alarmDescription: z.string().max(1024),
    namespace: z.string(),
    metricName: z.string(),
    dimensions: z.record(z.string(), z.unknown()),
    statistic: z.enum(['Sum', 'Maximum', 'Average', 'Minimum', 'SampleCount']),
    period: z
      .number()
      .int()
      .refine((n) => n % 60 === 0),
    evaluationPeriods: z.number().int().min(1),
    threshold: z.number(),
    comparisonOperator: z.enum([
      'GreaterThanThreshold',
      'GreaterThanOrEqualToThreshold',
      'LessThanThreshold',
      'LessThanOrEqualToThreshold',
    ]),
    treatMissingData: z.enum(['missing', 'ignore', 'breaching', 'notBreaching']),
    alarmActions: z.array(z.unknown()).min(1),
  })
  .strict();
const BucketArgs = z
  .object({
    cors: z
      .object({
        allowOrigins: z.array(z.string()),
        allowMethods: z.array(z.enum(['GET', 'PUT', 'POST', 'DELETE', 'HEAD'])),
        allowHeaders: z.array(z.string()),
      })
      .strict(),
    lifecycle: z.array(z.object({ expiresIn: z.string().regex(/^\d+ days?$/) }).strict()),
  })
  .strict();

/** A platform that records what the stacks ask SST for, instead of creating it. */
function recorder(stage = 'test') {
  const made: { kind: string; name: string; args: any }[] = [];
  const routes: { route: string; target: unknown }[] = [];
  const subscriptions: { target: unknown; args: unknown }[] = [];
  const resource = (kind: string) =>
    class {
      url: string;
      arn: string;
      name: string;
      value: string;
      nodes: unknown;
      constructor(name: string, args?: unknown) {
        made.push({ kind, name, args });
        this.url = `${kind}:${name}:url`;
        this.arn = `${kind}:${name}:arn`;
        this.name = `${kind}:${name}:name`;
        this.value = `${kind}:${name}:value`;
        this.nodes = { queue: { name: `${kind}:${name}:queueName` }, api: { id: `${kind}:${name}:id` } };
      }
      route(route: string, target: unknown) {
        routes.push({ route, target });
        return { nodes: { route: `Route:${route}` } };
      }
      subscribe(target: unknown, args: unknown) {
        subscriptions.push({ target, args });
      }
      notify(args: unknown) {
        made.push({ kind: 'Notify', name: 'notify', args });
      }
    };
  const kinds = [
    'Function',
    'Dynamo',
    'Queue',
    'ApiGatewayV2',
    'Cron',
    'Secret',
    'KmsKey',
    'Bucket',
    'Topic',
    'TopicSubscription',
    'MetricAlarm',
  ];
  const platform = { stage, ...Object.fromEntries(kinds.map((k) => [k, resource(k)])) } as unknown as Platform;
  return { platform, made, routes, subscriptions };
}

function deployed(opts?: DeployOptions, stage?: string) {
  const r = recorder(stage);
  deploy(r.platform, opts);
  const of = (kind: string) => r.made.filter((m) => m.kind === kind);
  const fn = (name: string) => of('Function').find((m) => m.name.toLowerCase() === name.toLowerCase())!;
  return { ...r, of, fn };
}

const defs = Object.entries(functions) as [string, FunctionDef][];
const alarms_ = (d: ReturnType<typeof deployed>) => Object.fromEntries(d.of('MetricAlarm').map((a) => [a.name, a.args]));

describe('stacks map the manifest onto SST', () => {
  const d = deployed();

  it('passes only arguments SST documents, in the shapes it documents', () => {
    for (const f of d.of('Function')) expect(FunctionArgs.safeParse(f.args).error, f.name).toBeUndefined();
    expect(DynamoArgs.safeParse(d.of('Dynamo')[0]!.args).error).toBeUndefined();
    for (const q of d.of('Queue')) expect(QueueArgs.safeParse(q.args).error, q.name).toBeUndefined();
    for (const s of d.subscriptions) expect(SubscribeArgs.safeParse(s.args).error).toBeUndefined();
    for (const c of d.of('Cron')) expect(CronArgs.safeParse(c.args).error, c.name).toBeUndefined();
    expect(ApiArgs.safeParse(d.of('ApiGatewayV2')[0]!.args).error).toBeUndefined();
    for (const a of d.of('MetricAlarm')) expect(AlarmArgs.safeParse(a.args).error, a.name).toBeUndefined();
    expect(BucketArgs.safeParse(d.of('Bucket')[0]!.args).error).toBeUndefined();
    // The schemas can fail: an argument SST does not take is refused.
    expect(FunctionArgs.safeParse({ ...d.of('Function')[0]!.args, reservedConcurrency: 1 }).success).toBe(false);
  });

  it('gives every SST component a name of its own, ignoring case, as SST requires (a Function and a Cron were both DomainCheck)', () => {
    const names = d.made
      .filter((m) => ['Function', 'Dynamo', 'Queue', 'ApiGatewayV2', 'Cron', 'Secret', 'Bucket'].includes(m.kind))
      .map((m) => m.name.toLowerCase());
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('lets the sender’s role take, delete and look at the send queue’s messages, which subscribing by ARN does not grant (sst issue #5737)', () => {
    for (const [name, def] of defs) {
      const consume = d
        .fn(name)
        .args.permissions.filter((p: { actions: string[] }) => p.actions.some((a) => SQS_CONSUME.includes(a as never)));
      const queue = { send: 'Queue:Send:arn', webhooks: 'Queue:Deliveries:arn' };
      if (def.consumes) expect(consume, name).toEqual([{ actions: [...SQS_CONSUME], resources: [queue[def.consumes]] }]);
      else expect(consume, name).toEqual([]);
    }
    expect(SQS_CONSUME).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']));
  });

  it('names one variable per path level, as API Gateway requires ({domain} beside {id} under /v1/domains/ was a 409)', () => {
    expect(routeVariables(d.routes.map((r) => r.route))).toEqual([]);
  });

  it('makes one Lambda per function group, and points every route of a group (and the catch-all) at it', () => {
    expect(
      d
        .of('Function')
        .map((f) => f.name)
        .sort(),
    ).toEqual(defs.map(([n]) => n.charAt(0).toUpperCase() + n.slice(1)).sort());
    const expected = allRoutes().map((r) => `${r.key} -> ${d.fn(r.fn).name}`);
    expected.push(`$default -> ${d.fn('fallback').name}`);
    expect(d.routes.map((r) => `${r.route} -> ${String(r.target).split(':')[1]}`).sort()).toEqual(expected.sort());
    expect(d.routes.every((r) => typeof r.target === 'string' && r.target.endsWith(':arn'))).toBe(true);
    expect(d.of('Function').length).toBeLessThan(25);
  });

  it('runs every function on Node 22, with its manifest timeout and memory', () => {
    for (const [name, def] of defs) {
      const args = d.fn(name).args;
      expect(args.runtime).toBe(RUNTIME);
      expect(RUNTIME).toBe('nodejs24.x');
      expect(args.timeout).toBe(`${def.timeoutSeconds ?? 29} seconds`);
    }
  });

  it('gives each function only what its manifest entry uses: the bucket, the queue, and sealing for its own purposes', () => {
    for (const [name, def] of defs) {
      const args = d.fn(name).args;
      const uploads = def.uses?.includes('uploads') ?? false;
      expect(
        args.link.includes('Bucket:Uploads:name') || args.link.some((l: { name?: string }) => l?.name === 'Bucket:Uploads:name'),
        name,
      ).toBe(uploads);
      // The console's page PUTs large CSV files to the bucket: its function names it (for the CSP) with no permission on it.
      expect('UPLOADS_BUCKET' in args.environment, name).toBe(uploads || Boolean(def.pageUploadsTo));
      expect('QUEUE_URL_SEND' in args.environment, name).toBe(Boolean(def.enqueues));
      // The webhooks queue's consumer is the one function that puts messages on it.
      expect('QUEUE_URL_WEBHOOKS' in args.environment, name).toBe(def.consumes === 'webhooks');
      const actions = args.permissions.flatMap((p: { actions: string[] }) => p.actions);
      const sends = args.permissions
        .filter((p: { actions: string[] }) => p.actions.includes('sqs:SendMessage'))
        .flatMap((p: { resources: string[] }) => p.resources);
      expect(sends, name).toEqual([
        ...(def.enqueues ? ['Queue:Send:arn'] : []),
        ...(def.consumes === 'webhooks' ? ['Queue:Deliveries:arn'] : []),
      ]);
      expect([...new Set(actions.filter((a: string) => a.startsWith('kms:')))].sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
      const purpose = (values: string[]) => ({ test: 'StringEquals', variable: 'kms:EncryptionContext:purpose', values });
      // A function that needs only some of the installation's secrets gets those by name, in a statement of their own.
      const expected = (purposes: string[]) =>
        def.installSecrets
          ? [
              [purpose(['install-secret']), { test: 'StringEquals', variable: 'kms:EncryptionContext:name', values: def.installSecrets }],
              ...(purposes.length ? [[purpose(purposes)]] : []),
            ]
          : [[purpose(['install-secret', ...purposes])]];
      const conditionsOf = (action: string) =>
        args.permissions.filter((p: { actions: string[] }) => p.actions.includes(action)).map((p: { conditions: unknown }) => p.conditions);
      expect(conditionsOf('kms:GenerateDataKey'), name).toEqual(expected(def.seals ?? []));
      expect(conditionsOf('kms:Decrypt'), name).toEqual(expected(def.opens ?? []));
      expect(
        args.permissions.every((p: { resources: unknown[] }) => !p.resources.includes('*')),
        name,
      ).toBe(true);
    }
    // The login signs tokens, and may open no other secret of the installation (the suppression salt, the unsubscribe key).
    expect(d.fn('auth').args.permissions.find((p: { actions: string[] }) => p.actions.includes('kms:Decrypt')).conditions).toEqual([
      { test: 'StringEquals', variable: 'kms:EncryptionContext:purpose', values: ['install-secret'] },
      { test: 'StringEquals', variable: 'kms:EncryptionContext:name', values: ['JWT_SECRET'] },
    ]);
    // Only the functions that exchange or refresh OAuth tokens see the apps' secrets, linked (encrypted in the bundle), never
    // in the environment, which anyone who may read a function's configuration reads in plain text.
    const linksSecret = (n: string, secret: string) =>
      d.fn(n).args.link.some((l: { name?: string }) => l?.name === `Secret:${secret}:name`);
    const withOAuth = defs
      .filter(([n]) => linksSecret(n, 'GoogleClientSecret') && linksSecret(n, 'MicrosoftClientSecret'))
      .map(([n]) => n)
      .sort();
    expect(withOAuth).toEqual(
      defs
        .filter(([, f]) => f.seals?.includes('mailbox-oauth-refresh'))
        .map(([n]) => n)
        .sort(),
    );
    expect(withOAuth).toEqual(expect.arrayContaining(['oauth', 'sender', 'mailboxPoller']));
    for (const [name] of defs) {
      const environment = JSON.stringify(d.fn(name).args.environment);
      expect(environment, name).not.toMatch(/CLIENT_SECRET|CLIENT_ID|Secret:/);
    }
  });

  it('reserves concurrency nowhere (a new account of 10 executions may reserve none) and bounds the sender where it takes messages', () => {
    for (const f of d.of('Function')) expect(f.args.concurrency, f.name).toBeUndefined();
    const sender = defs.find(([, f]) => f.consumes === 'send')![1];
    expect(d.subscriptions[0]!.args).toMatchObject({
      transform: { eventSourceMapping: { scalingConfig: { maximumConcurrency: sender.consumerConcurrency } } },
    });
    expect(sender.consumerConcurrency).toBeLessThan(10);
  });

  it('throttles every route of the stage, and each public route (and the catch-all) lower, once the routes exist', async () => {
    const transform = d.of('ApiGatewayV2')[0]!.args.transform.stage as StageTransform;
    // As SST calls it, with the stage's own arguments and options.
    const args: Record<string, unknown> = { apiId: 'api-id', autoDeploy: true, name: '$default' };
    const opts: { parent: string; dependsOn?: unknown } = { parent: 'Api' };
    transform(args, opts);
    expect(StageThrottleArgs.safeParse(args).error).toBeUndefined();
    expect(args).toMatchObject({ apiId: 'api-id', autoDeploy: true, name: '$default', defaultRouteSettings: API_THROTTLE });
    const settings = args.routeSettings as { routeKey: string }[];
    const publicKeys = [
      ...allRoutes()
        .filter((r) => r.public)
        .map((r) => r.key),
      '$default',
    ];
    expect(settings.map((r) => r.routeKey).sort()).toEqual(publicKeys.sort());
    expect(publicRouteKeys().sort()).toEqual(publicKeys.sort());
    expect(publicKeys).toEqual(
      expect.arrayContaining([
        'POST /v1/auth/login',
        'POST /v1/leads/webhook',
        'GET /unsubscribe/{token}',
        'GET /v1/oauth/{provider}/callback',
        'GET /v1/openapi.json',
      ]),
    );
    for (const s of settings) expect(s).toEqual({ routeKey: s.routeKey, ...PUBLIC_THROTTLE });
    // Lower than the authenticated routes', which keep the default.
    expect(PUBLIC_THROTTLE.throttlingRateLimit).toBeLessThan(API_THROTTLE.throttlingRateLimit);
    expect(PUBLIC_THROTTLE.throttlingBurstLimit).toBeLessThan(API_THROTTLE.throttlingBurstLimit);
    expect(settings.some((s) => s.routeKey === 'GET /v1/replies')).toBe(false);
    // The stage waits for exactly the routes its settings name (AWS refuses a setting for a route key it does not have).
    expect(opts.parent).toBe('Api');
    const waitsFor = await Promise.all([opts.dependsOn].flat());
    expect(waitsFor.flat().sort()).toEqual(publicKeys.map((k) => `Route:${k}`).sort());
    expect(d.routes.map((r) => r.route)).toEqual(expect.arrayContaining(publicKeys));
  });

  it('creates the table of the manifest, with its indexes, TTL, point-in-time recovery, and deletion protection in production only', () => {
    const table = d.of('Dynamo')[0]!;
    expect(table.args.primaryIndex).toEqual({ hashKey: tableDef.partitionKey, rangeKey: tableDef.sortKey });
    expect(Object.keys(table.args.globalIndexes)).toEqual(Object.keys(tableDef.indexes));
    expect(table.args.ttl).toBe('expiresAt');
    expect(table.args.transform.table).toEqual({ pointInTimeRecovery: { enabled: true }, deletionProtectionEnabled: false });
    expect(deployed({}, 'production').of('Dynamo')[0]!.args.transform.table).toEqual({
      pointInTimeRecovery: { enabled: true },
      deletionProtectionEnabled: true,
    });
  });

  it('stores uploads in a bucket whose new files start the import worker', () => {
    expect(d.of('Bucket')[0]!.args.lifecycle).toEqual([{ expiresIn: '1 day' }]);
    expect(d.of('Notify')[0]!.args.notifications).toEqual([
      { name: 'ImportWorker', events: ['s3:ObjectCreated:*'], filterPrefix: 'imports/', function: 'Function:ImportWorker:arn' },
    ]);
  });

  it('drains the send queue with the sender, ten records a batch with partial failures, and a dead-letter queue behind it', () => {
    const send = d.of('Queue').find((m) => m.name === 'Send')!;
    expect(send.args).toEqual({ visibilityTimeout: '540 seconds', dlq: { queue: 'Queue:SendDlq:arn', retry: 5 } });
    expect(d.subscriptions).toEqual([
      { target: 'Function:Sender:arn', args: expect.objectContaining({ batch: { size: 10, partialResponses: true } }) },
      { target: 'Function:WebhookWorker:arn', args: expect.objectContaining({ batch: { size: 10, partialResponses: true } }) },
    ]);
    // Outbound webhook attempts have their own queue and dead-letter queue: a receiver that is down never holds a send back.
    expect(d.of('Queue').find((m) => m.name === 'Deliveries')!.args).toEqual({
      visibilityTimeout: '360 seconds',
      dlq: { queue: 'Queue:DeliveriesDlq:arn', retry: 5 },
    });
    expect(d.of('KmsKey')[0]!.args.enableKeyRotation).toBe(true);
  });

  it('alarms on every function’s errors and throttles, the dead-letter queue, send errors, API 5xx, breaker trips and a poller behind, to one topic', () => {
    const alarms = Object.fromEntries(d.of('MetricAlarm').map((a) => [a.name, a.args]));
    const perFunction = defs.flatMap(([n]) => [
      `${n.charAt(0).toUpperCase() + n.slice(1)}Errors`,
      `${n.charAt(0).toUpperCase() + n.slice(1)}Throttles`,
    ]);
    expect(Object.keys(alarms).sort()).toEqual(
      [...perFunction, 'Api5xx', 'BreakerTrips', 'DeliveriesDlqNotEmpty', 'PollerBehind', 'SendDlqNotEmpty', 'SendErrors'].sort(),
    );
    for (const [n] of defs) {
      const fn = `Function:${n.charAt(0).toUpperCase() + n.slice(1)}:name`;
      expect(alarms[`${n.charAt(0).toUpperCase() + n.slice(1)}Errors`]).toMatchObject({
        namespace: 'AWS/Lambda',
        metricName: 'Errors',
        dimensions: { FunctionName: fn },
        statistic: 'Sum',
        threshold: 0,
      });
      expect(alarms[`${n.charAt(0).toUpperCase() + n.slice(1)}Throttles`]).toMatchObject({
        namespace: 'AWS/Lambda',
        metricName: 'Throttles',
        dimensions: { FunctionName: fn },
      });
    }
    expect(alarms.SendDlqNotEmpty.dimensions).toEqual({ QueueName: 'Queue:SendDlq:queueName' });
    expect(alarms.SendErrors).toMatchObject({
      namespace: 'Outbound',
      metricName: 'SendErrors',
      dimensions: { Installation: 'Dynamo:Table:name' },
    });
    expect(alarms.BreakerTrips).toMatchObject({
      namespace: 'Outbound',
      metricName: 'BreakerTrips',
      dimensions: { Installation: 'Dynamo:Table:name' },
    });
    for (const a of Object.values(alarms)) expect(a.alarmActions).toEqual(['Topic:Alarms:arn']);
    expect(d.of('TopicSubscription')).toEqual([]);
    expect(deployed({ alarmEmail: 'ops@example.com' }).of('TopicSubscription')[0]!.args).toEqual({
      topic: 'Topic:Alarms:arn',
      protocol: 'email',
      endpoint: 'ops@example.com',
    });
  });

  it('calls the poller behind when its runs reach the point where it stops reading, three periods running', async () => {
    const poller = schedules.poll!.fn;
    const timeout = (functions[poller] as FunctionDef).timeoutSeconds!;
    expect(alarms_(d).PollerBehind).toMatchObject({
      metricName: 'Duration',
      dimensions: { FunctionName: 'Function:MailboxPoller:name' },
      statistic: 'Maximum',
      comparisonOperator: 'GreaterThanOrEqualToThreshold',
      threshold: (timeout - POLLER_DEADLINE_MARGIN_S) * 1000,
      evaluationPeriods: 3,
    });
    // The margin is the one the poller keeps (functions/src/schedules/poll.ts), read from its source so the two cannot drift.
    const src = await readFile(resolve(root, 'functions/src', (functions[poller] as FunctionDef).handler), 'utf8');
    expect(Number(/const MARGIN_MS = ([\d_]+);/.exec(src)![1]!.replace(/_/g, ''))).toBe(POLLER_DEADLINE_MARGIN_S * 1000);
  });

  it('puts links on the customer’s own host when a domain is given', () => {
    expect(d.fn('unsubscribe').args.environment.PUBLIC_BASE_URL).toBe('ApiGatewayV2:Api:url');
    const own = deployed({ domain: 'mail-api.example.com', domainCertArn: 'arn:aws:acm:eu-west-1:1:certificate/x' });
    expect(own.of('ApiGatewayV2')[0]!.args.domain).toEqual({
      name: 'mail-api.example.com',
      cert: 'arn:aws:acm:eu-west-1:1:certificate/x',
      dns: false,
    });
    for (const f of own.of('Function')) expect(f.args.environment.PUBLIC_BASE_URL).toBe('https://mail-api.example.com');
    expect(deployed({ domain: 'mail-api.example.com' }).of('ApiGatewayV2')[0]!.args.domain).toEqual({ name: 'mail-api.example.com' });
  });
});

describe('the SST the stacks were written for', () => {
  it('is pinned to an exact version in devDependencies, so `npx sst` never fetches whatever is newest', async () => {
    const pkg = JSON.parse(await readFile(resolve(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies.sst).toMatch(/^4\.\d+\.\d+$/);
  });
});

describe('schedule expressions', () => {
  it('are valid EventBridge rate expressions, the unit singular for a value of 1', () => {
    const d = deployed();
    expect(d.of('Cron').length).toBe(Object.keys(schedules).length);
    for (const c of d.of('Cron')) expect(c.args.schedule, c.name).toMatch(RATE);
    expect(rateExpression(1)).toBe('rate(1 minute)');
    expect(rateExpression(5)).toBe('rate(5 minutes)');
    expect(rateExpression(60)).toBe('rate(1 hour)');
    expect(rateExpression(120)).toBe('rate(2 hours)');
    expect(() => rateExpression(0)).toThrow();
    expect(() => rateExpression(1.5)).toThrow();
    // The check itself refuses what EventBridge refuses.
    for (const bad of ['rate(1 minutes)', 'rate(5 minute)', 'rate(0 minutes)', 'rate(01 minute)', 'cron(* * * * *)'])
      expect(bad).not.toMatch(RATE);
  });
});
