/**
 * The local stand-in for Lambda's SQS event source mapping: long-polls a queue, hands each
 * batch to the same handler AWS runs, and deletes what the handler finished. Partial batch
 * responses behave as with ReportBatchItemFailures: the messages named in
 * `batchItemFailures` stay on the queue and come back after their visibility timeout.
 */
import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Logger } from '@outbound/core/log';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

export interface QueueConsumerOptions {
  client: SQSClient;
  queueUrl: string;
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;
  /** Messages per invocation, 1 to 10 (SQS's maximum per receive). Default 10. */
  batchSize?: number;
  /** Long-poll wait per receive, 0 to 20 s. Default 1. */
  waitSeconds?: number;
  /** Name reported in the Lambda context. Default: the queue's name. */
  functionName?: string;
  /** Invocations at once, as Lambda runs several for a busy queue. Default 1. */
  concurrency?: number;
  log: Logger;
}

export interface QueueConsumer {
  /**
   * Stops polling and resolves once the consumer is idle: a receive under way returns within
   * waitSeconds (anything it brings is handed straight back to the queue), and the batch in
   * hand finishes, handler and deletes included.
   */
  stop(): Promise<void>;
}

/** Pause after a failed receive or attribute read before polling again. */
const RETRY_PAUSE_MS = 1_000;

export function startQueueConsumer(opts: QueueConsumerOptions): QueueConsumer {
  const batchSize = Math.min(10, Math.max(1, Math.trunc(opts.batchSize ?? 10)));
  const waitSeconds = Math.min(20, Math.max(0, Math.trunc(opts.waitSeconds ?? 1)));
  const { client, queueUrl, log } = opts;
  const stopping = new AbortController();

  async function run(): Promise<void> {
    let source: QueueSource | undefined;
    while (!stopping.signal.aborted) {
      try {
        source ??= await describeQueue(client, queueUrl, stopping.signal);
        const received = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitSeconds,
            AttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          // Not aborted on stop: a receive cut off after the queue handed messages out would hide
          // them for a whole visibility timeout. stop() waits at most waitSeconds for it instead.
        );
        const messages = (received.Messages ?? []).filter(isComplete);
        if (messages.length === 0) continue;
        if (stopping.signal.aborted) {
          // Received as the consumer stopped: hand them straight back rather than sit out the visibility timeout.
          await release(client, queueUrl, messages, log);
          break;
        }
        await invoke(source, messages);
      } catch (err) {
        if (stopping.signal.aborted) break;
        log.warn('queue consumer: polling failed, retrying', { queueUrl, err });
        await pause(RETRY_PAUSE_MS, stopping.signal);
      }
    }
  }

  async function invoke(source: QueueSource, messages: CompleteMessage[]): Promise<void> {
    const event: SQSEvent = { Records: messages.map((m) => toRecord(m, source)) };
    const context = lambdaContext(opts.functionName ?? source.name, source);
    let response: SQSBatchResponse | void;
    try {
      response = await opts.handler(event, context);
    } catch (err) {
      // As on Lambda: a failed invocation leaves the whole batch for redelivery.
      log.error('queue consumer: handler failed, the batch will be redelivered', { queueUrl, count: messages.length, err });
      return;
    }
    const failed = failedIds(response, messages);
    if (failed === 'all') {
      log.error('queue consumer: invalid batchItemFailures, the batch will be redelivered', { queueUrl, response });
      return;
    }
    const done = messages.filter((m) => !failed.has(m.MessageId));
    await remove(client, queueUrl, done, log);
  }

  const pollers = Math.max(1, Math.trunc(opts.concurrency ?? 1));
  const running = Promise.all(
    Array.from({ length: pollers }, () =>
      run().catch((err: unknown) => log.error('queue consumer stopped unexpectedly', { queueUrl, err })),
    ),
  );

  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}

type CompleteMessage = Message & { MessageId: string; ReceiptHandle: string };

function isComplete(m: Message): m is CompleteMessage {
  return typeof m.MessageId === 'string' && typeof m.ReceiptHandle === 'string';
}

interface QueueSource {
  arn: string;
  name: string;
  region: string;
  accountId: string;
  /** The function timeout on AWS may not exceed it, so it bounds getRemainingTimeInMillis. */
  visibilityTimeoutSeconds: number;
}

async function describeQueue(client: SQSClient, queueUrl: string, signal: AbortSignal): Promise<QueueSource> {
  const out = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn', 'VisibilityTimeout'] }), {
    abortSignal: signal,
  });
  const arn = out.Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${queueUrl} reported no QueueArn`);
  // arn:aws:sqs:<region>:<account>:<name>
  const [, , , arnRegion, accountId = '000000000000', name = arn] = arn.split(':');
  const region = arnRegion || (await client.config.region());
  return { arn, name, region, accountId, visibilityTimeoutSeconds: Number(out.Attributes?.VisibilityTimeout ?? 30) };
}

function toRecord(m: CompleteMessage, source: QueueSource): SQSRecord {
  const a = m.Attributes ?? {};
  const sent = a.SentTimestamp ?? String(Date.now());
  const record: SQSRecord = {
    messageId: m.MessageId,
    receiptHandle: m.ReceiptHandle,
    body: m.Body ?? '',
    attributes: {
      ...a,
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: sent,
      SenderId: a.SenderId ?? source.accountId,
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? sent,
    },
    messageAttributes: toLambdaAttributes(m.MessageAttributes),
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: source.arn,
    awsRegion: source.region,
  };
  if (m.MD5OfMessageAttributes) record.md5OfMessageAttributes = m.MD5OfMessageAttributes;
  return record;
}

/** Lambda spells message attributes in camel case with binary values in base64. */
function toLambdaAttributes(attrs: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, v] of Object.entries(attrs ?? {})) {
    out[name] = {
      dataType: v.DataType ?? 'String',
      ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
      ...(v.BinaryValue !== undefined ? { binaryValue: Buffer.from(v.BinaryValue).toString('base64') } : {}),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return out;
}

function lambdaContext(functionName: string, source: QueueSource): Context {
  const deadline = Date.now() + source.visibilityTimeoutSeconds * 1000;
  const functionArn = `arn:aws:lambda:${source.region}:${source.accountId}:function:${functionName}`;
  const unsupported = () => {
    throw new Error('callback-style completion is not supported: return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: functionArn,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

/**
 * The message ids to keep, per Lambda's rules for partial batch responses: no response or an
 * empty list is full success; an identifier that is missing, empty or not in the batch fails
 * the whole batch.
 */
function failedIds(response: SQSBatchResponse | void, messages: CompleteMessage[]): Set<string> | 'all' {
  if (response === undefined || response === null) return new Set();
  if (typeof response !== 'object') return 'all';
  const list: unknown = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (list === undefined || list === null) return new Set();
  if (!Array.isArray(list)) return 'all';
  const inBatch = new Set(messages.map((m) => m.MessageId));
  const failed = new Set<string>();
  for (const item of list) {
    const id: unknown = typeof item === 'object' && item !== null ? (item as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || !inBatch.has(id)) return 'all';
    failed.add(id);
  }
  return failed;
}

async function remove(client: SQSClient, queueUrl: string, messages: CompleteMessage[], log: Logger): Promise<void> {
  if (messages.length === 0) return;
  try {
    const out = await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle })),
      }),
    );
    for (const f of out.Failed ?? []) {
      log.warn('queue consumer: delete refused, the message will be redelivered', { queueUrl, entry: f.Id, code: f.Code });
    }
  } catch (err) {
    // The handler's work is done; a redelivery meets its idempotency (the send is claimed in the table).
    log.warn('queue consumer: delete failed, the batch will be redelivered', { queueUrl, count: messages.length, err });
  }
}

async function release(client: SQSClient, queueUrl: string, messages: CompleteMessage[], log: Logger): Promise<void> {
  try {
    await client.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 })),
      }),
    );
  } catch (err) {
    log.warn('queue consumer: could not release messages received while stopping', { queueUrl, count: messages.length, err });
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
