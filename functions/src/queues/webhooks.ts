import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachLimited } from '@outbound/core/collections';
import { deliver, sweep } from '@outbound/core/webhooks/delivery';
import { finishPauseAnnouncement } from '@outbound/core/queue/index';
import { getDeps, lambda } from '../lib/deps.ts';

/** Attempts of one batch made at once: each waits at most 10 s on its receiver. */
const AT_ONCE = 10;

type ScheduleEvent = { source?: string; requeueAll?: boolean };

/**
 * Outbound webhooks' worker. From the webhooks queue: one attempt per message
 * (a message that fails, the store down, comes back, and after 5 goes to the
 * DLQ; the delivery stays in the table and the sweep queues it again). On its
 * schedule: the sweep, which queues the deliveries that are due, after writing
 * the events of a queue pause that a crash cut short.
 */
async function run(event: SQSEvent | ScheduleEvent): Promise<SQSBatchResponse | { queued: number }> {
  const deps = getDeps();
  if (!('Records' in event)) {
    // A queue pause whose campaign.paused events a crash cut short gets them now, so this sweep can queue them. Its
    // failure is logged and the sweep goes on: the events of every other fact must not wait on it.
    try {
      const announced = await finishPauseAnnouncement(deps);
      if (announced !== 'none')
        deps.log.warn('webhooks: a queue pause cut short was announced again', { allWritten: announced === 'written' });
    } catch (err) {
      deps.log.error('webhooks: a queue pause cut short could not be announced yet', { err });
    }
    const result = await sweep(deps, { requeueAll: Boolean(event?.requeueAll) });
    if (result.queued) deps.log.info('webhooks sweep', result);
    return result;
  }
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await eachLimited(event.Records, AT_ONCE, async (record) => {
    try {
      const msg = JSON.parse(record.body) as { webhookId: string; eventId: string; attempt: number };
      const outcome = await deliver(deps, msg);
      if (outcome !== 'skipped') deps.log.info('webhook delivery', { webhookId: msg.webhookId, eventId: msg.eventId, outcome });
    } catch (err) {
      deps.log.error('webhook delivery failed; it will be retried', { messageId: record.messageId, err });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  });
  return { batchItemFailures };
}

export const handler = lambda(run);
