/**
 * The send queue (SQS on AWS, fauxqs locally). It only delivers job ids at
 * the right time; the table is the source of truth for every job.
 */
export interface QueueMessage {
  jobId: string;
  /** Engine milliseconds until the job is due; the adapter turns it into a wall-clock delay of at most 900 s. */
  delayMs: number;
}

export interface SendQueue {
  enqueue(messages: QueueMessage[]): Promise<void>;
}
