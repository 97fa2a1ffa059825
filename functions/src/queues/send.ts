import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachLimited } from '@outbound/core/collections';
import type { QueueMessage } from '@outbound/core/ports/queue';
import { HandBack, sendJob } from '@outbound/core/sending/sender';
import { getDeps, lambda } from '../lib/deps.ts';
import { aiKit } from '../lib/kits/ai.ts';
import { smtpKit } from '../lib/kits/smtp.ts';

/** Records of one batch sent at once: each goes from its own mailbox, so they never wait on one another. */
const AT_ONCE = 10;

/**
 * The sender: drains the send queue. Each message names a job; the core send
 * path does the rest, told how long this invocation has left so a job that
 * could not finish in it is never started. A job handed back that way goes
 * straight back on the queue; a message whose job could not be processed is
 * reported as a partial batch failure and comes back after the visibility
 * timeout (the job's conditional claim makes the redelivery harmless).
 */
async function run(event: SQSEvent, context?: Partial<Context>): Promise<SQSBatchResponse> {
  const deps = getDeps();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const handedBack: QueueMessage[] = [];
  const timeLeft = context?.getRemainingTimeInMillis ? () => context.getRemainingTimeInMillis!() : undefined;
  await eachLimited(event.Records, AT_ONCE, async (record) => {
    try {
      const { jobId, ref, accepted } = JSON.parse(record.body) as QueueMessage;
      const outcome = await sendJob(deps, jobId, { ref, accepted, timeLeft });
      deps.log.info('send job', { jobId, outcome, receiveCount: record.attributes?.ApproximateReceiveCount });
    } catch (err) {
      if (err instanceof HandBack) {
        handedBack.push({ ...(JSON.parse(record.body) as QueueMessage), delayMs: 0 });
        return;
      }
      deps.log.error('send job failed; it will be retried', { messageId: record.messageId, err });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  });
  if (handedBack.length) {
    try {
      await deps.queue.enqueue(handedBack);
    } catch (err) {
      // Not queued again: the messages come back after their visibility timeout instead.
      deps.log.warn('could not hand jobs back to the queue', { count: handedBack.length, err });
      const ids = new Set(handedBack.map((m) => m.jobId));
      for (const r of event.Records)
        if (ids.has((JSON.parse(r.body) as QueueMessage).jobId)) batchItemFailures.push({ itemIdentifier: r.messageId });
    }
  }
  return { batchItemFailures };
}

export const handler = lambda(run, [smtpKit, aiKit]);
