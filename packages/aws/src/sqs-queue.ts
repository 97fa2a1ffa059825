import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueMessage, SendQueue } from '@outbound/core/ports/queue';
import type { DeliveryMessage, WebhookQueue } from '@outbound/core/ports/webhooks';

/** SQS refuses a DelaySeconds above 15 minutes (fauxqs accepts more: the limit is kept here). */
export const MAX_DELAY_SECONDS = 900;
/** SendMessageBatch takes at most ten entries. */
const BATCH_SIZE = 10;

/** Some entries of a batch were refused; the job ids say which (bodies are never listed). */
export class EnqueueFailedError extends Error {
  constructor(readonly failures: Array<{ jobId: string; code: string | undefined; senderFault: boolean | undefined }>) {
    super(`SQS refused ${failures.length} message(s): ${failures.map((f) => `${f.jobId} (${f.code ?? 'unknown'})`).join(', ')}`);
    this.name = new.target.name;
  }
}

/**
 * The SendQueue over SQS (or fauxqs locally). Each message only carries a job id and
 * becomes visible when the job is due; the table stays the source of truth.
 */
export class SqsSendQueue implements SendQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;
  private readonly timeScale: number;

  constructor(opts: { client: SQSClient; queueUrl: string; /** Engine ms per wall ms (TIME_SCALE). Default 1. */ timeScale?: number }) {
    const timeScale = opts.timeScale ?? 1;
    if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error(`timeScale must be a positive number, got ${timeScale}`);
    this.client = opts.client;
    this.queueUrl = opts.queueUrl;
    this.timeScale = timeScale;
  }

  /** Wall-clock seconds SQS should hold a message that is due in `delayMs` engine milliseconds. */
  delaySeconds(delayMs: number): number {
    if (Number.isNaN(delayMs)) throw new Error('delayMs is not a number');
    return Math.max(0, Math.ceil(delayMs / this.timeScale / 1000));
  }

  /**
   * Sends every message, ten to a request. All delays are checked before anything is sent:
   * the dispatcher must only enqueue what is due within 15 minutes of wall time. Throws
   * EnqueueFailedError, after trying every batch, when SQS refused any entry.
   */
  async enqueue(messages: QueueMessage[]): Promise<void> {
    const entries = messages.map((m) => {
      const delay = this.delaySeconds(m.delayMs);
      if (delay > MAX_DELAY_SECONDS) {
        throw new Error(`job ${m.jobId} is due in ${delay} s of wall time; SQS delays at most ${MAX_DELAY_SECONDS} s`);
      }
      return {
        jobId: m.jobId,
        delay,
        body: { jobId: m.jobId, ...(m.ref ? { ref: m.ref } : {}), ...(m.accepted ? { accepted: m.accepted } : {}) },
      };
    });

    const failures: EnqueueFailedError['failures'] = [];
    for (let start = 0; start < entries.length; start += BATCH_SIZE) {
      const batch = entries.slice(start, start + BATCH_SIZE);
      // Entry ids only need to be unique within a request; job ids may hold characters SQS refuses there.
      const requestEntries: SendMessageBatchRequestEntry[] = batch.map((e, i) => ({
        Id: `m${i}`,
        MessageBody: JSON.stringify(e.body),
        DelaySeconds: e.delay,
      }));
      const out = await this.client.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: requestEntries }));
      for (const failed of out.Failed ?? []) {
        const index = Number(failed.Id?.slice(1));
        failures.push({ jobId: batch[index]?.jobId ?? `entry ${failed.Id}`, code: failed.Code, senderFault: failed.SenderFault });
      }
    }
    if (failures.length > 0) throw new EnqueueFailedError(failures);
  }
}

/**
 * Outbound webhooks' delivery queue over SQS: a message names a delivery and
 * the attempt it is for, and becomes visible when that attempt is due.
 */
export class SqsWebhookQueue implements WebhookQueue {
  private readonly delays: SqsSendQueue;
  constructor(private readonly opts: { client: SQSClient; queueUrl: string; timeScale?: number }) {
    this.delays = new SqsSendQueue(opts);
  }

  async enqueue(messages: DeliveryMessage[]): Promise<void> {
    for (let start = 0; start < messages.length; start += BATCH_SIZE) {
      const batch = messages.slice(start, start + BATCH_SIZE);
      const out = await this.opts.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.opts.queueUrl,
          Entries: batch.map((m, i) => ({
            Id: `m${i}`,
            MessageBody: JSON.stringify({ webhookId: m.webhookId, eventId: m.eventId, attempt: m.attempt }),
            // A longer wait stays in the table; the sweep queues it when it comes within reach.
            DelaySeconds: Math.min(MAX_DELAY_SECONDS, this.delays.delaySeconds(m.delayMs)),
          })),
        }),
      );
      if (out.Failed?.length)
        throw new Error(`SQS refused ${out.Failed.length} delivery message(s): ${out.Failed.map((f) => f.Code ?? 'unknown').join(', ')}`);
    }
  }
}
