import { describe, expect, it } from 'vitest';
import { allRoutes, functions, table as tableDef } from '../functions/src/manifest.ts';
import { deploy } from './index.ts';
import type { FunctionArgs, Platform } from './platform.ts';

/** A platform that records what the stacks ask SST for, instead of creating it. */
function recorder() {
  const made: { kind: string; name: string; args: any }[] = [];
  const routes: { route: string; fn: FunctionArgs }[] = [];
  const resource = (kind: string) =>
    class {
      url = `${kind}-url`;
      arn = `${kind}-arn`;
      name = `${kind}-name`;
      constructor(name: string, args?: unknown) {
        made.push({ kind, name, args });
      }
      route(route: string, fn: FunctionArgs) {
        routes.push({ route, fn });
      }
      subscribe() {}
      notify(args: unknown) {
        made.push({ kind: 'Notify', name: 'notify', args });
      }
    };
  const platform = {
    stage: 'test',
    Dynamo: resource('Dynamo'),
    Queue: resource('Queue'),
    ApiGatewayV2: resource('Api'),
    Cron: resource('Cron'),
    KmsKey: resource('KmsKey'),
    Bucket: resource('Bucket'),
  } as unknown as Platform;
  return { platform, made, routes };
}

describe('stacks map the manifest onto SST', () => {
  const { platform, made, routes } = recorder();
  deploy(platform);

  it('routes every manifest route, and the catch-all, to its function handler', () => {
    const expected = allRoutes().map((r) => `${r.key} -> functions/src/${functions[r.fn].handler.replace('.ts', '')}.handler`);
    expected.push('$default -> functions/src/http/fallback.handler');
    expect(routes.map((r) => `${r.route} -> ${r.fn.handler}`).sort()).toEqual(expected.sort());
  });

  it('gives every function the table, the key and least-privilege KMS permissions', () => {
    for (const { fn } of routes) {
      expect(fn.environment).toMatchObject({ TABLE_NAME: 'Dynamo-name', KMS_KEY_ID: 'KmsKey-arn' });
      expect(fn.permissions).toContainEqual({ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: ['KmsKey-arn'] });
    }
  });

  it('creates the table of the manifest, with its indexes and TTL attribute', () => {
    const table = made.find((m) => m.kind === 'Dynamo')!;
    expect(table.args.primaryIndex).toEqual({ hashKey: tableDef.partitionKey, rangeKey: tableDef.sortKey });
    expect(Object.keys(table.args.globalIndexes)).toEqual(Object.keys(tableDef.indexes));
    expect(table.args.ttl).toBe('expiresAt');
  });

  it('stores uploads in a bucket whose new files start the import worker, and lets every function reach it', () => {
    const bucket = made.find((m) => m.kind === 'Bucket')!;
    expect(bucket.args.lifecycle).toEqual([{ expiresIn: '1 day' }]);
    const notify = made.find((m) => m.kind === 'Notify')!;
    expect(notify.args.notifications).toEqual([
      expect.objectContaining({ events: ['s3:ObjectCreated:*'], filterPrefix: 'imports/', function: expect.objectContaining({ handler: 'functions/src/workers/imports.handler' }) }),
    ]);
    for (const { fn } of routes) expect(fn.environment).toMatchObject({ UPLOADS_BUCKET: 'Bucket-name' });
  });

  it('creates each queue with a dead-letter queue and a key with rotation', () => {
    const send = made.find((m) => m.kind === 'Queue' && m.name === 'Send')!;
    expect(send.args).toEqual({ visibilityTimeout: '540 seconds', dlq: { queue: 'Queue-arn', retry: 5 } });
    expect(made.find((m) => m.kind === 'KmsKey')!.args.enableKeyRotation).toBe(true);
  });
});
