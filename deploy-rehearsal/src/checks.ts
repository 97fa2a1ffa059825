/**
 * What AWS would refuse, or what would fail later, checked on the resources a
 * rehearsed stage asked for. SST's own checks ran already (its errors are in
 * the report); these stand in for the account's. Each returns sentences
 * naming the resource, or nothing.
 */
import type { Recorded, StageReport } from './report.ts';

/** A new account's concurrent executions, and what Lambda always keeps unreserved: min(100, the quota). */
export const NEW_ACCOUNT_CONCURRENCY = 10;

const FN = 'aws:lambda/function:Function';
const ESM = 'aws:lambda/eventSourceMapping:EventSourceMapping';
const ROLE = 'aws:iam/role:Role';
const QUEUE = 'aws:sqs/queue:Queue';
const ROUTE = 'aws:apigatewayv2/route:Route';
const PERMISSION = 'aws:lambda/permission:Permission';
const STAGE = 'aws:apigatewayv2/stage:Stage';

const of = (r: StageReport, type: string) => r.resources.filter((x) => x.type === type);

function functionNamed(r: StageReport, nameOrArn: string): Recorded | undefined {
  const name = String(nameOrArn).split(':function:').pop()!.split(':')[0];
  return of(r, FN).find((f) => f.outputs.name === name);
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string[]>>;
}

/** The statements of a role's inline policies (SST writes one, "inline"). */
export function statementsOf(role: Recorded): Statement[] {
  return (role.inputs.inlinePolicies ?? []).flatMap((p: { policy: string }) => {
    const doc = JSON.parse(p.policy) as { Statement: Statement[] | Statement };
    return Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement];
  });
}

const list = (v: string | string[]) => (Array.isArray(v) ? v : [v]);
const glob = (pattern: string, value: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(value);

/** Whether the role's inline policy allows `action` on `resource`, unconditionally. */
export function allows(role: Recorded, action: string, resource: string): boolean {
  return statementsOf(role).some(
    (s) =>
      s.Effect === 'Allow' &&
      !s.Condition &&
      list(s.Action).some((a) => glob(a, action)) &&
      list(s.Resource).some((r) => glob(r, resource)),
  );
}

/** What Lambda's poller calls with the function's role, per event source (AWS refuses the mapping without them). */
const POLLER_ACTIONS: Record<string, string[]> = {
  sqs: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
  dynamodb: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
  kinesis: ['kinesis:DescribeStream', 'kinesis:GetRecords', 'kinesis:GetShardIterator', 'kinesis:ListShards'],
};

export function eventSourceRoles(r: StageReport): string[] {
  const problems: string[] = [];
  for (const m of of(r, ESM)) {
    const fn = functionNamed(r, m.inputs.functionName);
    const role = fn && of(r, ROLE).find((x) => x.outputs.arn === fn.inputs.role);
    if (!fn || !role) {
      problems.push(`${m.name}: no function with a role of this rehearsal is named ${m.inputs.functionName}`);
      continue;
    }
    const service = String(m.inputs.eventSourceArn).split(':')[2]!;
    const missing = (POLLER_ACTIONS[service] ?? []).filter((a) => !allows(role, a, m.inputs.eventSourceArn));
    if (missing.length)
      problems.push(
        `${m.name}: the role of ${fn.outputs.name} lacks ${missing.join(', ')} on ${m.inputs.eventSourceArn} (AWS refuses the mapping)`,
      );
  }
  // Pushed events need the function's own permission for the service that invokes it.
  const invoked = new Map<string, Set<string>>();
  const add = (fnRef: string, principal: string) => {
    const fn = functionNamed(r, fnRef);
    if (fn) (invoked.get(fn.outputs.name) ?? invoked.set(fn.outputs.name, new Set()).get(fn.outputs.name)!).add(principal);
  };
  for (const n of of(r, 'aws:s3/bucketNotification:BucketNotification'))
    for (const f of n.inputs.lambdaFunctions ?? []) add(f.lambdaFunctionArn, 's3.amazonaws.com');
  for (const t of of(r, 'aws:cloudwatch/eventTarget:EventTarget'))
    if (String(t.inputs.arn).includes(':function:')) add(t.inputs.arn, 'events.amazonaws.com');
  for (const i of of(r, 'aws:apigatewayv2/integration:Integration'))
    if (String(i.inputs.integrationUri).includes(':function:')) add(i.inputs.integrationUri, 'apigateway.amazonaws.com');
  const granted = of(r, PERMISSION).map((p) => `${functionNamed(r, p.inputs.function)?.outputs.name}|${p.inputs.principal}`);
  for (const [fn, principals] of invoked)
    for (const p of principals)
      if (!granted.includes(`${fn}|${p}`)) problems.push(`${fn}: invoked by ${p} without a lambda:InvokeFunction permission for it`);
  return problems;
}

/** AWS's advice for an SQS event source: at least six times the function's timeout, or batches come back while still in flight. */
export function queueVisibility(r: StageReport): string[] {
  const problems: string[] = [];
  for (const m of of(r, ESM)) {
    const queue = of(r, QUEUE).find((q) => q.outputs.arn === m.inputs.eventSourceArn);
    const fn = functionNamed(r, m.inputs.functionName);
    if (!queue || !fn) continue;
    const visibility = queue.inputs.visibilityTimeoutSeconds ?? 30;
    const timeout = fn.inputs.timeout ?? 3;
    if (visibility < 6 * timeout)
      problems.push(`${queue.outputs.name}: visibility ${visibility} s is less than 6 × ${fn.outputs.name}'s timeout of ${timeout} s`);
  }
  return problems;
}

/** API Gateway HTTP APIs take one variable name per level under a parent: `/a/{id}` beside `/a/{name}/b` is a 409 ConflictException. */
export function routeVariables(routeKeys: string[]): string[] {
  const seen = new Map<string, { name: string; key: string }>();
  const problems: string[] = [];
  for (const key of routeKeys) {
    const path = key.split(' ')[1];
    if (!path) continue;
    const segments = path.split('/').filter(Boolean);
    segments.forEach((s, i) => {
      const m = /^\{([^}+]+)\+?\}$/.exec(s);
      if (!m) return;
      const parent = segments
        .slice(0, i)
        .map((p) => (p.startsWith('{') ? '{}' : p))
        .join('/');
      const before = seen.get(parent);
      if (!before) seen.set(parent, { name: m[1]!, key });
      else if (before.name !== m[1])
        problems.push(`${key}: {${m[1]}} beside {${before.name}} of ${before.key} at /${parent}/ (one variable name per level)`);
    });
  }
  return problems;
}

/**
 * AWS refuses a stage's setting for a route key its API does not have yet (SST makes the stage before any route):
 * the stage must depend on every route its settings name, so the engine creates those routes first and deletes the
 * stage (or its setting) before them.
 */
export function routeSettingsAfterRoutes(r: StageReport): string[] {
  const problems: string[] = [];
  for (const stage of of(r, STAGE)) {
    const routes = of(r, ROUTE).filter((x) => x.inputs.apiId === stage.inputs.apiId);
    for (const { routeKey } of (stage.inputs.routeSettings ?? []) as { routeKey: string }[]) {
      const route = routes.find((x) => x.inputs.routeKey === routeKey);
      if (!route) problems.push(`${stage.name}: a setting for ${routeKey}, a route its API does not have`);
      else if (!route.urn || !(stage.dependencies ?? []).includes(route.urn))
        problems.push(
          `${stage.name}: a setting for ${routeKey} that does not wait for ${route.name} (AWS refuses a setting for a route key that does not exist yet)`,
        );
    }
  }
  return problems;
}

const LIMITS: Record<string, { field: string; max: number; pattern?: RegExp }> = {
  [FN]: { field: 'name', max: 64, pattern: /^[A-Za-z0-9_-]+$/ },
  [ROLE]: { field: 'name', max: 64, pattern: /^[\w+=,.@-]+$/ },
  [QUEUE]: { field: 'name', max: 80, pattern: /^[\w-]+(\.fifo)?$/ },
  'aws:cloudwatch/eventRule:EventRule': { field: 'name', max: 64, pattern: /^[.\-_A-Za-z0-9]+$/ },
  'aws:dynamodb/table:Table': { field: 'name', max: 255, pattern: /^[\w.-]{3,}$/ },
  // @pulumi/aws 7 (SST 4) dropped the V2 suffix of the S3 types; 6 (SST 3) had it.
  'aws:s3/bucket:Bucket': { field: 'bucket', max: 63, pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/ },
  'aws:s3/bucketV2:BucketV2': { field: 'bucket', max: 63, pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/ },
  'aws:sns/topic:Topic': { field: 'name', max: 256 },
  'aws:cloudwatch/metricAlarm:MetricAlarm': { field: 'name', max: 255 },
  'aws:cloudwatch/logGroup:LogGroup': { field: 'name', max: 512 },
};

/** Physical name lengths and characters, and the limits Lambda refuses a function or a mapping over. */
export function namesAndLimits(r: StageReport): string[] {
  const problems: string[] = [];
  for (const x of r.resources) {
    const limit = LIMITS[x.type];
    const name = limit && (x.inputs[limit.field] ?? x.outputs[limit.field]);
    if (limit && typeof name === 'string' && (name.length > limit.max || (limit.pattern && !limit.pattern.test(name))))
      problems.push(`${x.name}: the name ${name} (${name.length}) is not a valid ${x.type.split(':').pop()} name of at most ${limit.max}`);
  }
  for (const f of of(r, FN)) {
    const i = f.inputs;
    if (!(i.timeout >= 1 && i.timeout <= 900)) problems.push(`${f.outputs.name}: timeout ${i.timeout} s is outside 1–900`);
    if (!(i.memorySize >= 128 && i.memorySize <= 10240)) problems.push(`${f.outputs.name}: memory ${i.memorySize} MB is outside 128–10240`);
    if ((i.description ?? '').length > 256) problems.push(`${f.outputs.name}: description over 256 characters`);
    const env = Object.entries((i.environment?.variables ?? {}) as Record<string, string>).reduce(
      (n, [k, v]) => n + k.length + String(v).length,
      0,
    );
    if (env > 4096) problems.push(`${f.outputs.name}: environment of ${env} bytes is over Lambda's 4 KB`);
  }
  for (const m of of(r, ESM)) {
    const max = m.inputs.scalingConfig?.maximumConcurrency;
    if (max !== undefined && !(max >= 2 && max <= 1000)) problems.push(`${m.name}: maximumConcurrency ${max} is outside 2–1000`);
    if (String(m.inputs.eventSourceArn).includes(':sqs:') && m.inputs.batchSize > 10 && !(m.inputs.maximumBatchingWindowInSeconds >= 1))
      problems.push(`${m.name}: an SQS batch over 10 needs a batching window`);
  }
  for (const [role, bytes] of of(r, ROLE).map(
    (x) =>
      [
        x.outputs.name,
        (x.inputs.inlinePolicies ?? []).reduce((n: number, p: { policy: string }) => n + p.policy.replace(/\s/g, '').length, 0),
      ] as const,
  )) {
    if (bytes > 10240) problems.push(`${role}: inline policies of ${bytes} characters are over IAM's 10,240`);
  }
  return problems;
}

/** Lambda keeps min(100, quota) executions unreserved: in a new account of 10, no function may reserve any. */
export function reservedConcurrency(r: StageReport, quota = NEW_ACCOUNT_CONCURRENCY): string[] {
  const reserved = of(r, FN).filter((f) => (f.inputs.reservedConcurrentExecutions ?? -1) >= 0);
  const total = reserved.reduce((n, f) => n + f.inputs.reservedConcurrentExecutions, 0);
  const room = quota - Math.min(100, quota);
  if (total <= room) return [];
  return [
    `reserved concurrency totals ${total} (${reserved.map((f) => `${f.outputs.name} ${f.inputs.reservedConcurrentExecutions}`).join(', ')}), but an account of ${quota} can reserve ${room}`,
  ];
}

/** Production keeps its data and refuses deletion; any other stage comes down with `sst remove`. */
export function teardown(r: StageReport): string[] {
  const production = r.stage === 'production';
  const problems: string[] = [];
  for (const t of of(r, 'aws:dynamodb/table:Table')) {
    if (Boolean(t.inputs.deletionProtectionEnabled) !== production)
      problems.push(`${t.name}: deletion protection ${t.inputs.deletionProtectionEnabled ? 'on' : 'off'} in stage ${r.stage}`);
    if (Boolean(t.retainOnDelete) !== production)
      problems.push(`${t.name}: ${t.retainOnDelete ? 'kept' : 'deleted'} by \`sst remove\` in stage ${r.stage}`);
  }
  return problems;
}

/** Every check, by what it stands in for. */
export const CHECKS: Record<string, (r: StageReport) => string[]> = {
  'event-source roles and invoke permissions': eventSourceRoles,
  'queue visibility against consumer timeout': queueVisibility,
  'one variable name per path level': (r) =>
    routeVariables(
      of(r, ROUTE)
        .map((x) => String(x.inputs.routeKey))
        .sort(),
    ),
  'route settings made after their routes': routeSettingsAfterRoutes,
  'names and Lambda limits': namesAndLimits,
  'reserved concurrency in a new account': (r) => reservedConcurrency(r),
  'teardown per stage': teardown,
};

export function checkStage(r: StageReport): string[] {
  return Object.values(CHECKS).flatMap((check) => check(r));
}
