import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { rebindingStatus } from '../helpers/rebinding.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { EnqueueFailedError, SqsSendQueue } from '@outbound/aws/sqs-queue';
import { createLogger, type Fields } from '@outbound/core/log';
import { startQueueConsumer, type QueueConsumer } from '@outbound/local/queue-consumer';
import { startSqsLocal, type SqsLocal } from '@outbound/local/sqs-local';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let sqs: SqsLocal;
const consumers: QueueConsumer[] = [];
let queueCount = 0;

beforeAll(async () => {
  sqs = await startSqsLocal();
  const host = new URL(sqs.endpoint).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`Refusing non-local SQS endpoint ${sqs.endpoint}`);
});
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.stop()));
});
afterAll(async () => {
  await sqs?.stop();
});

/** A queue of this test's own, so that no test sees another's messages. */
async function newQueue(visibilityTimeoutSeconds = 30): Promise<string> {
  queueCount += 1;
  const out = await sqs.client.send(
    new CreateQueueCommand({
      QueueName: `test-${queueCount}-${Date.now()}`,
      Attributes: { VisibilityTimeout: String(visibilityTimeoutSeconds) },
    }),
  );
  return out.QueueUrl!;
}

async function receive(queueUrl: string, waitSeconds = 0): Promise<Message[]> {
  const out = await sqs.client.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds, VisibilityTimeout: 30 }),
  );
  return out.Messages ?? [];
}

/** Everything on the queue, visible, in flight or delayed. */
async function depth(queueUrl: string): Promise<number> {
  const out = await sqs.client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  const a = out.Attributes ?? {};
  return (
    Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible) + Number(a.ApproximateNumberOfMessagesDelayed)
  );
}

async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function captureLog() {
  const lines: Fields[] = [];
  return { lines, log: createLogger((l) => lines.push(l), { service: 'test' }, 'debug') };
}

function consume(queueUrl: string, handler: (event: SQSEvent) => Promise<SQSBatchResponse | void>, log = captureLog().log): QueueConsumer {
  const consumer = startQueueConsumer({ client: sqs.client, queueUrl, handler, waitSeconds: 1, log });
  consumers.push(consumer);
  return consumer;
}

const jobOf = (r: SQSRecord) => (JSON.parse(r.body) as { jobId: string }).jobId;

describe('SqsSendQueue', () => {
  it('holds a message for its delay (timeScale 1: 1500 ms -> 2 s)', async () => {
    const queue = new SqsSendQueue({ client: sqs.client, queueUrl: sqs.urls.send! });
    const sentAt = Date.now();
    await queue.enqueue([{ jobId: 'job-delayed', delayMs: 1500 }]);

    expect(await receive(sqs.urls.send!)).toHaveLength(0);
    const [message] = await eventually(async () => {
      const got = await receive(sqs.urls.send!, 1);
      return got.length ? got : undefined;
    });
    expect(JSON.parse(message!.Body!)).toEqual({ jobId: 'job-delayed' });
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_000);
  });

  it('scales engine time to wall time (timeScale 1000: 600 000 ms -> 1 s), rounding up and never below 0', async () => {
    const queueUrl = await newQueue();
    const queue = new SqsSendQueue({ client: sqs.client, queueUrl, timeScale: 1000 });
    expect(queue.delaySeconds(600_000)).toBe(1);
    expect(queue.delaySeconds(600_001)).toBe(1);
    expect(queue.delaySeconds(1_000_001)).toBe(2);
    expect(queue.delaySeconds(-5_000)).toBe(0);

    await queue.enqueue([
      { jobId: 'job-scaled', delayMs: 600_000 },
      { jobId: 'job-overdue', delayMs: -60_000 },
    ]);
    const now = await receive(queueUrl);
    expect(now.map((m) => JSON.parse(m.Body!).jobId)).toEqual(['job-overdue']);
    const later = await eventually(async () => {
      const got = await receive(queueUrl, 1);
      return got.length ? got : undefined;
    });
    expect(later.map((m) => JSON.parse(m.Body!).jobId)).toEqual(['job-scaled']);
  });

  it('refuses a delay over 900 s of wall time and then sends nothing at all', async () => {
    const queueUrl = await newQueue();
    const queue = new SqsSendQueue({ client: sqs.client, queueUrl });
    await queue.enqueue([{ jobId: 'at-limit', delayMs: 900_000 }]);
    await expect(
      queue.enqueue([
        { jobId: 'fine', delayMs: 0 },
        { jobId: 'too-late', delayMs: 900_001 },
      ]),
    ).rejects.toThrow(/too-late.*900 s/);
    expect(await depth(queueUrl)).toBe(1); // only the first call's message

    const scaled = new SqsSendQueue({ client: sqs.client, queueUrl, timeScale: 10 });
    await expect(scaled.enqueue([{ jobId: 'ten-days', delayMs: 10 * 86_400_000 }])).rejects.toThrow(/ten-days/);
    expect(await depth(queueUrl)).toBe(1);
  });

  it('sends in batches of ten', async () => {
    const queueUrl = await newQueue();
    const queue = new SqsSendQueue({ client: sqs.client, queueUrl });
    const ids = Array.from({ length: 23 }, (_, i) => `job/${i}:with odd chars`);
    await queue.enqueue(ids.map((jobId) => ({ jobId, delayMs: 0 })));
    expect(await depth(queueUrl)).toBe(23);
    const seen = new Set<string>();
    while (seen.size < 23) {
      const got = await receive(queueUrl);
      if (got.length === 0) break;
      for (const m of got) seen.add(JSON.parse(m.Body!).jobId);
    }
    expect([...seen].sort()).toEqual([...ids].sort());
  });

  it('names the refused job ids, never the bodies', () => {
    const err = new EnqueueFailedError([{ jobId: 'job-9', code: 'InternalError', senderFault: false }]);
    expect(err.message).toBe('SQS refused 1 message(s): job-9 (InternalError)');
    expect(err.name).toBe('EnqueueFailedError');
  });
});

describe('startQueueConsumer (the local SQS event source)', () => {
  it('delivers Lambda-shaped events, deletes successes and redelivers reported batchItemFailures', async () => {
    const queueUrl = await newQueue(1);
    const arn = (await sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!
      .QueueArn!;
    await new SqsSendQueue({ client: sqs.client, queueUrl }).enqueue(['job-a', 'job-b', 'job-c'].map((jobId) => ({ jobId, delayMs: 0 })));

    const deliveries: SQSRecord[] = [];
    consume(queueUrl, async (event) => {
      deliveries.push(...event.Records);
      const failures = event.Records.filter((r) => jobOf(r) === 'job-b' && r.attributes.ApproximateReceiveCount === '1');
      return { batchItemFailures: failures.map((r) => ({ itemIdentifier: r.messageId })) };
    });

    const redelivered = await eventually(() =>
      deliveries.find((r) => jobOf(r) === 'job-b' && r.attributes.ApproximateReceiveCount === '2'),
    );
    expect(redelivered.attributes.ApproximateReceiveCount).toBe('2');

    const first = deliveries[0]!;
    expect(first).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: 'us-east-1',
      messageAttributes: {},
    });
    expect(first.receiptHandle).toEqual(expect.any(String));
    expect(first.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(first.attributes.SentTimestamp)).toBeGreaterThan(0);

    // Past another visibility timeout: the successes were deleted, not redelivered.
    await sleep(1_500);
    const count = (job: string) => deliveries.filter((r) => jobOf(r) === job).length;
    expect([count('job-a'), count('job-b'), count('job-c')]).toEqual([1, 2, 1]);
    // job-b's second delivery is deleted after its handler returns, by the consumer, in its own time.
    await waitFor(async () => (await depth(queueUrl)) === 0, {
      timeoutMs: 10_000,
      describe: 'the queue to be empty',
      lastSeen: () => depth(queueUrl).then((n) => `${n} message(s) left`),
    });
  });

  it('deletes nothing when the handler throws: the batch comes back', async () => {
    const queueUrl = await newQueue(1);
    await new SqsSendQueue({ client: sqs.client, queueUrl }).enqueue([{ jobId: 'job-x', delayMs: 0 }]);
    const counts: string[] = [];
    const { lines, log } = captureLog();
    consume(
      queueUrl,
      async (event) => {
        counts.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
        if (counts.length === 1) throw new Error('handler blew up');
      },
      log,
    );
    await eventually(() => (counts.length >= 2 ? true : undefined));
    expect(counts.slice(0, 2)).toEqual(['1', '2']);
    expect(lines.some((l) => l.level === 'error' && /handler failed/.test(String(l.msg)))).toBe(true);
    await eventually(async () => ((await depth(queueUrl)) === 0 ? true : undefined));
  });

  it('stop() waits for the batch in flight to finish and be deleted', async () => {
    const queueUrl = await newQueue(30);
    await new SqsSendQueue({ client: sqs.client, queueUrl }).enqueue([{ jobId: 'job-slow', delayMs: 0 }]);
    let started = false;
    let finishedAt = 0;
    const consumer = consume(queueUrl, async () => {
      started = true;
      await sleep(700);
      finishedAt = Date.now();
    });
    await eventually(() => (started ? true : undefined));
    await consumer.stop();
    const stoppedAt = Date.now();
    expect(finishedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeGreaterThanOrEqual(finishedAt);
    expect(await depth(queueUrl)).toBe(0);
  });

  it('logs polling errors and keeps going instead of crashing', async () => {
    const { lines, log } = captureLog();
    const missing = sqs.urls.send!.replace(/[^/]+$/, 'no-such-queue');
    const consumer = consume(missing, async () => undefined, log);
    await eventually(() => (lines.some((l) => l.level === 'warn' && /polling failed/.test(String(l.msg))) ? true : undefined));
    await consumer.stop();
  });
});

describe('the local queue service', () => {
  it('takes no request from a client without the credentials made at its start, nor one addressed to another name (DNS rebinding)', async () => {
    const queueUrl = sqs.urls.send!;
    await new SqsSendQueue({ client: sqs.client, queueUrl }).enqueue([{ jobId: 'job-private', delayMs: 0 }]);
    // Another user of the machine reaches the port with any credentials but the engine's: it can neither read nor add.
    for (const credentials of [
      { accessKeyId: 'local', secretAccessKey: 'local' },
      { accessKeyId: sqs.credentials.accessKeyId, secretAccessKey: 'guessed' },
    ]) {
      const stranger = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials });
      const read = await stranger.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 })).catch((e: unknown) => e);
      expect(read).toMatchObject({ name: 'InvalidClientTokenId', $metadata: { httpStatusCode: 403 } });
      const added = await stranger
        .send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"jobId":"forged"}' }))
        .catch((e: unknown) => e);
      expect(added).toMatchObject({ name: 'InvalidClientTokenId' });
      stranger.destroy();
    }
    // A page on an attacker's name that resolves to 127.0.0.1 carries that name in Host.
    expect(await rebindingStatus(sqs.endpoint, 'AmazonSQS.ListQueues', 'application/x-amz-json-1.0')).toBe(403);
    // Too large is answered as such (not a reset the SDK would send the whole body again after), before any check of it.
    const big = await fetch(sqs.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: Buffer.alloc(4 * 1024 * 1024, 'x'),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ __type: expect.stringContaining('RequestTooLarge') });
    // The engine's own client still reads the one message there, and no forged one.
    const bodies = (await receive(queueUrl)).map((m) => JSON.parse(m.Body!).jobId);
    expect(bodies).toEqual(['job-private']);
  });
});
