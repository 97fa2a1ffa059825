/**
 * The slice of SST's platform (the `sst` and `aws` globals inside
 * sst.config.ts) that the stacks use. The stacks take it as an argument, so
 * the mapping from the manifest to AWS resources is tested offline with a
 * recorder, and typechecked without the ~400 MB `.sst/platform` that `sst
 * install` downloads.
 */
export type Output = unknown;

export interface FunctionArgs {
  handler: string;
  link?: unknown[];
  environment?: Record<string, Output>;
  permissions?: { actions: string[]; resources: Output[] }[];
  timeout?: string;
  memory?: string;
  runtime?: string;
  architecture?: string;
  nodejs?: { format?: 'esm' | 'cjs'; minify?: boolean; sourcemap?: boolean };
}

export interface Dynamo {
  name: Output;
  arn: Output;
}
export interface Queue {
  url: Output;
  arn: Output;
  subscribe(subscriber: FunctionArgs, args?: { batch?: { size?: number; partialResponses?: boolean } }): unknown;
}
export interface Api {
  url: Output;
  route(route: string, handler: FunctionArgs): unknown;
}
export interface KmsKey {
  arn: Output;
}
export interface Bucket {
  name: Output;
  arn: Output;
  notify(args: { notifications: { name: string; function: FunctionArgs; events?: string[]; filterPrefix?: string }[] }): unknown;
}

export interface Platform {
  stage: string;
  Dynamo: new (
    name: string,
    args: {
      fields: Record<string, 'string' | 'number'>;
      primaryIndex: { hashKey: string; rangeKey: string };
      globalIndexes: Record<string, { hashKey: string; rangeKey: string }>;
      ttl?: string;
    },
  ) => Dynamo;
  Queue: new (name: string, args?: { visibilityTimeout?: string; dlq?: { queue: Output; retry: number } }) => Queue;
  ApiGatewayV2: new (name: string, args?: Record<string, unknown>) => Api;
  Cron: new (name: string, args: { schedule: string; function: FunctionArgs }) => unknown;
  KmsKey: new (name: string, args: { description: string; enableKeyRotation: boolean }) => KmsKey;
  Bucket: new (
    name: string,
    args?: { cors?: boolean | { allowOrigins?: string[]; allowMethods?: string[]; allowHeaders?: string[] }; lifecycle?: { prefix?: string; expiresIn: string }[] },
  ) => Bucket;
}
