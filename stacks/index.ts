import { buckets, functions, queues, schedules, table as tableDef, type FunctionDef } from '../functions/src/manifest.ts';
import type { FunctionArgs, Platform } from './platform.ts';

/**
 * Maps the one manifest onto AWS: the table, the KMS key, the queues, one
 * Lambda per function group behind API Gateway HTTP API, and the schedules.
 * Nothing here is a rule of the engine; it only places the pieces.
 */
export function deploy(p: Platform) {
  const table = new p.Dynamo('Table', {
    fields: Object.fromEntries(
      [tableDef.partitionKey, tableDef.sortKey, ...Object.values(tableDef.indexes).flatMap((i) => [i.partitionKey, i.sortKey])].map(
        (f) => [f, 'string' as const],
      ),
    ),
    primaryIndex: { hashKey: tableDef.partitionKey, rangeKey: tableDef.sortKey },
    globalIndexes: Object.fromEntries(
      Object.entries(tableDef.indexes).map(([name, i]) => [name, { hashKey: i.partitionKey, rangeKey: i.sortKey }]),
    ),
    ttl: tableDef.ttlAttribute,
  });

  const key = new p.KmsKey('Secrets', {
    description: `Outbound (${p.stage}): envelope key for mailbox passwords, OAuth tokens, AI keys and the token-signing secret`,
    enableKeyRotation: true,
  });

  const queueUrls: Record<string, unknown> = {};
  const queueArns: unknown[] = [];
  const made = Object.entries(queues).map(([name, def]) => {
    const dlq = new p.Queue(`${cap(name)}Dlq`);
    const queue = new p.Queue(cap(name), {
      visibilityTimeout: `${def.visibilityTimeoutSeconds} seconds`,
      dlq: { queue: dlq.arn, retry: def.maxReceiveCount },
    });
    queueUrls[`QUEUE_URL_${name.toUpperCase()}`] = queue.url;
    queueUrls[`QUEUE_URL_${name.toUpperCase()}_DLQ`] = dlq.url;
    queueArns.push(queue.arn, dlq.arn);
    return { name, queue };
  });

  // Uploaded CSVs wait here for their import (a signed PUT from the client's browser or script, hence CORS for PUT).
  const uploads = new p.Bucket('Uploads', {
    cors: { allowOrigins: ['*'], allowMethods: ['PUT'], allowHeaders: ['content-type', 'content-length'] },
    lifecycle: [{ expiresIn: `${buckets.uploads.expireDays} day${buckets.uploads.expireDays === 1 ? '' : 's'}` }],
  });

  const api = new p.ApiGatewayV2('Api');

  const fn = (def: FunctionDef): FunctionArgs => ({
    handler: `functions/src/${def.handler.replace(/\.ts$/, '')}.handler`,
    // Linking grants the function the table's and the bucket's permissions.
    link: [table, uploads],
    environment: {
      TABLE_NAME: table.name,
      KMS_KEY_ID: key.arn,
      PUBLIC_BASE_URL: api.url,
      UPLOADS_BUCKET: uploads.name,
      ...queueUrls,
    },
    permissions: [
      { actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: [key.arn] },
      { actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes'], resources: queueArns },
    ],
    timeout: `${def.timeoutSeconds ?? 29} seconds`,
    memory: `${def.memoryMb ?? 512} MB`,
    runtime: 'nodejs20.x',
    architecture: 'arm64',
    nodejs: { format: 'esm', minify: true, sourcemap: true },
  });

  for (const def of Object.values(functions) as FunctionDef[]) {
    for (const r of def.routes ?? []) api.route(`${r.method} ${r.path}`, fn(def));
    if (def.catchAll) api.route('$default', fn(def));
    if (def.onStored) {
      uploads.notify({ notifications: [{ name: 'ImportWorker', function: fn(def), events: ['s3:ObjectCreated:*'], filterPrefix: 'imports/' }] });
    }
    if (def.consumes) {
      made.find((m) => m.name === def.consumes)!.queue.subscribe(fn(def), { batch: { size: 10, partialResponses: true } });
    }
  }

  for (const [name, s] of Object.entries(schedules)) {
    new p.Cron(cap(name), { schedule: `rate(${s.everyMinutes} ${s.everyMinutes === 1 ? "minute" : "minutes"})`, function: fn(functions[s.fn] as FunctionDef) });
  }

  return { api: api.url, table: table.name, queues: made.map((m) => m.name) };
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
