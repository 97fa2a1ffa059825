import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sendJob } from '@outbound/core/sending/sender';
import { getDeps } from '../lib/deps.ts';

/**
 * The sender: drains the send queue. Each message names a job; the core send
 * path does the rest. A message whose job could not be processed is reported
 * as a partial batch failure and comes back after the visibility timeout;
 * the job's conditional claim makes the redelivery harmless.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const deps = getDeps();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const { jobId } = JSON.parse(record.body) as { jobId: string };
      const outcome = await sendJob(deps, jobId);
      deps.log.info('send job', { jobId, outcome, receiveCount: record.attributes?.ApproximateReceiveCount });
    } catch (err) {
      deps.log.error('send job failed; it will be retried', { messageId: record.messageId, err });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
