/**
 * The slice of SST's platform (the `sst` and `aws` globals inside
 * sst.config.ts) that the stacks use. The stacks take it as an argument, so
 * the mapping from the manifest to AWS resources is tested offline with a
 * recorder. SST's own component types are not in its npm package: `sst
 * install` generates them into `.sst/platform` and first downloads Pulumi
 * and its AWS provider from outside the npm registry, so they cannot be had
 * offline. These types follow SST's documented arguments, the same in 3 and 4 (sst.dev/docs/
 * component/aws/*), and stacks/index.test.ts checks every argument the stacks
 * pass against strict schemas of the same documented shapes.
 */
export type Output = unknown;

export interface Permission {
  actions: string[];
  resources: Output[];
  conditions?: { test: string; variable: string; values: string[] }[];
}

export interface FunctionArgs {
  handler: string;
  description?: string;
  link?: unknown[];
  environment?: Record<string, Output>;
  permissions?: Permission[];
  timeout?: string;
  memory?: string;
  runtime?: string;
  architecture?: string;
  logging?: { retention?: string; format?: 'json' | 'text' };
  /** `plugins`: a file whose default export is the esbuild plugins SST's build of this function runs. */
  nodejs?: { format?: 'esm' | 'cjs'; minify?: boolean; sourcemap?: boolean; plugins?: string };
}

export interface Fn {
  arn: Output;
  name: Output;
}
export interface Dynamo {
  name: Output;
  arn: Output;
}
export interface Queue {
  url: Output;
  arn: Output;
  nodes: { queue: { name: Output } };
  subscribe(
    subscriber: Output,
    args?: {
      batch?: { size?: number; window?: string; partialResponses?: boolean };
      transform?: { eventSourceMapping?: { scalingConfig?: { maximumConcurrency: number } } };
    },
  ): unknown;
}
export interface Api {
  url: Output;
  nodes: { api: { id: Output } };
  /** SST's ApiGatewayV2LambdaRoute: `nodes.route` is the API Gateway route itself. */
  route(route: string, handler: Output): { nodes: { route: Output } };
}
/**
 * A transform of the stage SST makes for the API (`transform.stage` as a
 * function): it changes aws.apigatewayv2.Stage's arguments and Pulumi's
 * resource options in place. `dependsOn` takes resources, or a promise of them.
 */
export type StageTransform = (args: Record<string, unknown>, opts: { dependsOn?: unknown }) => void;
export interface KmsKey {
  arn: Output;
}
export interface Bucket {
  name: Output;
  arn: Output;
  notify(args: { notifications: { name: string; function: Output; events?: string[]; filterPrefix?: string }[] }): unknown;
}
export interface Secret {
  value: Output;
}
export interface Topic {
  arn: Output;
}

export interface Platform {
  stage: string;
  Function: new (name: string, args: FunctionArgs) => Fn;
  Dynamo: new (
    name: string,
    args: {
      fields: Record<string, 'string' | 'number'>;
      primaryIndex: { hashKey: string; rangeKey: string };
      globalIndexes: Record<string, { hashKey: string; rangeKey: string }>;
      ttl?: string;
      transform?: { table?: Record<string, unknown> };
    },
  ) => Dynamo;
  Queue: new (name: string, args?: { visibilityTimeout?: string; dlq?: { queue: Output; retry: number } }) => Queue;
  ApiGatewayV2: new (
    name: string,
    args?: {
      domain?: { name: string; cert?: string; dns?: false };
      transform?: { stage?: StageTransform };
    },
  ) => Api;
  Cron: new (name: string, args: { schedule: string; function: Output }) => unknown;
  Secret: new (name: string, placeholder?: string) => Secret;
  KmsKey: new (name: string, args: { description: string; enableKeyRotation: boolean }) => KmsKey;
  Bucket: new (
    name: string,
    args?: {
      cors?: boolean | { allowOrigins?: string[]; allowMethods?: string[]; allowHeaders?: string[] };
      lifecycle?: { prefix?: string; expiresIn: string }[];
    },
  ) => Bucket;
  Topic: new (name: string, args?: Record<string, unknown>) => Topic;
  TopicSubscription: new (name: string, args: { topic: Output; protocol: 'email'; endpoint: string }) => unknown;
  MetricAlarm: new (name: string, args: MetricAlarmArgs) => unknown;
}

/** aws.cloudwatch.MetricAlarm's arguments, the part the stacks set (Pulumi AWS provider). */
export interface MetricAlarmArgs {
  alarmDescription: string;
  namespace: string;
  metricName: string;
  dimensions: Record<string, Output>;
  statistic: 'Sum' | 'Maximum';
  period: number;
  evaluationPeriods: number;
  threshold: number;
  comparisonOperator: 'GreaterThanThreshold' | 'GreaterThanOrEqualToThreshold';
  treatMissingData: 'notBreaching';
  alarmActions: Output[];
}
