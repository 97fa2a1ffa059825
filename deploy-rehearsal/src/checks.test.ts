import { describe, expect, it } from 'vitest';
import {
  allows,
  checkStage,
  eventSourceRoles,
  namesAndLimits,
  queueVisibility,
  reservedConcurrency,
  routeSettingsAfterRoutes,
  routeVariables,
  teardown,
} from './checks.ts';
import type { Recorded, StageReport } from './report.ts';

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:app-dev-Send';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/app-dev-SenderRole';
const policy = (actions: string[], resource = QUEUE_ARN) =>
  JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: actions, Resource: [resource] }] });

/** A stage holding a queue drained by one function, the blocker of issue 21 when `actions` lacks the poller's. */
function stage(
  actions: string[],
  over: { timeout?: number; visibility?: number; reserved?: number; stage?: string; protect?: boolean; retain?: boolean } = {},
): StageReport {
  const r = (
    type: string,
    name: string,
    inputs: Record<string, any>,
    outputs: Record<string, any> = {},
    extra: Partial<Recorded> = {},
  ): Recorded => ({ type, name, inputs, outputs, ...extra });
  return {
    stage: over.stage ?? 'dev',
    errors: [],
    resources: [
      r(
        'aws:sqs/queue:Queue',
        'SendQueue',
        { name: 'app-dev-Send', visibilityTimeoutSeconds: over.visibility ?? 540 },
        { name: 'app-dev-Send', arn: QUEUE_ARN },
      ),
      r(
        'aws:iam/role:Role',
        'SenderRole',
        { name: 'app-dev-SenderRole', inlinePolicies: [{ name: 'inline', policy: policy(actions) }] },
        { name: 'app-dev-SenderRole', arn: ROLE_ARN },
      ),
      r(
        'aws:lambda/function:Function',
        'SenderFunction',
        {
          name: 'app-dev-Sender',
          role: ROLE_ARN,
          timeout: over.timeout ?? 90,
          memorySize: 512,
          reservedConcurrentExecutions: over.reserved,
          environment: { variables: { A: 'b' } },
        },
        { name: 'app-dev-Sender' },
      ),
      r('aws:lambda/eventSourceMapping:EventSourceMapping', 'SendMapping', {
        functionName: 'app-dev-Sender',
        eventSourceArn: QUEUE_ARN,
        batchSize: 10,
        scalingConfig: { maximumConcurrency: 5 },
      }),
      r(
        'aws:dynamodb/table:Table',
        'Table',
        { name: 'app-dev-Table', deletionProtectionEnabled: over.protect ?? false },
        {},
        { retainOnDelete: over.retain },
      ),
    ],
  };
}

const CONSUME = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ChangeMessageVisibility'];

describe('the rehearsal’s AWS-side checks', () => {
  it('pass a queue consumer whose role may receive and delete, with visibility six times its timeout', () => {
    expect(checkStage(stage(CONSUME))).toEqual([]);
  });

  it('refuse an event source whose role can only send (sst issue #5737: subscribe(arn) grants nothing)', () => {
    const problems = eventSourceRoles(stage(['sqs:SendMessage']));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('lacks sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes');
  });

  it('read wildcards and conditions as IAM does: a conditional grant does not count', () => {
    const role: Recorded = {
      type: 'aws:iam/role:Role',
      name: 'R',
      outputs: {},
      inputs: {
        inlinePolicies: [
          {
            name: 'inline',
            policy: JSON.stringify({
              Statement: [
                { Effect: 'Allow', Action: ['sqs:*'], Resource: ['arn:aws:sqs:*'] },
                {
                  Effect: 'Allow',
                  Action: 'kms:Decrypt',
                  Resource: '*',
                  Condition: { StringEquals: { 'kms:EncryptionContext:purpose': ['x'] } },
                },
              ],
            }),
          },
        ],
      },
    };
    expect(allows(role, 'sqs:ReceiveMessage', QUEUE_ARN)).toBe(true);
    expect(allows(role, 'kms:Decrypt', 'arn:aws:kms:us-east-1:1:key/k')).toBe(false);
  });

  it('refuse a visibility timeout under six times the consumer’s timeout', () => {
    expect(queueVisibility(stage(CONSUME, { visibility: 539 }))).toEqual([expect.stringContaining('less than 6 × app-dev-Sender')]);
    expect(queueVisibility(stage(CONSUME, { visibility: 540 }))).toEqual([]);
  });

  it('refuse two variable names at one level under a parent, whatever comes after them', () => {
    expect(routeVariables(['PATCH /v1/domains/{id}', 'POST /v1/domains/{domain}/check'])).toEqual([
      expect.stringContaining('{domain} beside {id}'),
    ]);
    expect(
      routeVariables([
        'PATCH /v1/domains/{id}',
        'POST /v1/domains/{id}/check',
        'GET /v1/leads/{id}',
        'GET /v1/leads/imports/{importId}',
        '$default',
      ]),
    ).toEqual([]);
    // Levels under different parents are independent; a greedy variable is a variable too.
    expect(routeVariables(['GET /a/{x}/b/{y}', 'GET /a/{x}/c/{z}', 'GET /p/{proxy+}', 'GET /p/{id}'])).toEqual([
      expect.stringContaining('{id} beside {proxy}'),
    ]);
  });

  it('refuse any reserved concurrency in a new account of 10 (Lambda keeps min(100, quota) unreserved)', () => {
    expect(reservedConcurrency(stage(CONSUME, { reserved: 1 }))).toEqual([expect.stringContaining('can reserve 0')]);
    expect(reservedConcurrency(stage(CONSUME, { reserved: 1 }), 1000)).toEqual([]);
    expect(reservedConcurrency(stage(CONSUME))).toEqual([]);
  });

  it('refuse names AWS refuses, and functions over Lambda’s limits', () => {
    const r = stage(CONSUME, { timeout: 901 });
    r.resources[2]!.outputs.name = r.resources[2]!.inputs.name = 'x'.repeat(65);
    r.resources.find((x) => x.type.includes('eventSourceMapping'))!.inputs.functionName = 'x'.repeat(65);
    const problems = namesAndLimits(r);
    expect(problems.some((p) => p.includes('at most 64'))).toBe(true);
    expect(problems.some((p) => p.includes('timeout 901 s'))).toBe(true);
  });

  it('keep and protect production only: any other stage must come down with `sst remove`', () => {
    expect(teardown(stage(CONSUME, { stage: 'production', protect: true, retain: true }))).toEqual([]);
    expect(teardown(stage(CONSUME, { stage: 'dev' }))).toEqual([]);
    expect(teardown(stage(CONSUME, { stage: 'dev', protect: true }))).toEqual([
      expect.stringContaining('deletion protection on in stage dev'),
    ]);
    expect(teardown(stage(CONSUME, { stage: 'production', protect: true }))).toEqual([
      expect.stringContaining('deleted by `sst remove` in stage production'),
    ]);
  });

  it('refuse a stage setting for a route the stage does not wait for, or that its API does not have', () => {
    const urn = (name: string) => `urn:pulumi:dev::outbound::aws:apigatewayv2/route:Route::${name}`;
    const route = (name: string, routeKey: string): Recorded => ({
      type: 'aws:apigatewayv2/route:Route',
      name,
      urn: urn(name),
      inputs: { apiId: 'api', routeKey },
      outputs: {},
    });
    const api = (dependencies: string[], keys: string[]): StageReport => ({
      stage: 'dev',
      errors: [],
      resources: [
        route('Login', 'POST /v1/auth/login'),
        route('Fallback', '$default'),
        {
          type: 'aws:apigatewayv2/stage:Stage',
          name: 'ApiStage',
          inputs: { apiId: 'api', routeSettings: keys.map((routeKey) => ({ routeKey, throttlingRateLimit: 5, throttlingBurstLimit: 10 })) },
          outputs: {},
          dependencies,
        },
      ],
    });
    expect(routeSettingsAfterRoutes(api([urn('Login'), urn('Fallback')], ['POST /v1/auth/login', '$default']))).toEqual([]);
    // Made in the API's constructor and left there, the stage would be created before the routes: AWS refuses it.
    expect(routeSettingsAfterRoutes(api([urn('Login')], ['POST /v1/auth/login', '$default']))).toEqual([
      expect.stringContaining('$default that does not wait for Fallback'),
    ]);
    expect(routeSettingsAfterRoutes(api([urn('Login')], ['GET /v1/nothing']))).toEqual([
      expect.stringContaining('GET /v1/nothing, a route its API does not have'),
    ]);
    // A stage without settings waits for nothing.
    expect(routeSettingsAfterRoutes(api([], []))).toEqual([]);
  });
});
