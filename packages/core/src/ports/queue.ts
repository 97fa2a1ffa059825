/**
 * The send queue (SQS on AWS, fauxqs locally). It only delivers job ids at
 * the right time; the table is the source of truth for every job.
 */
export interface QueueMessage {
  jobId: string;
  /**
   * The ids the job's send reads by (its kind, mailbox, campaign and lead, ...),
   * so the sender reads the job and what it needs in one batch. A hint only:
   * the job as read is the truth.
   */
  ref?: JobRef;
  /** Not a send: the SMTP server accepted the email of this claim, and the sender records it (the store was down a moment). */
  accepted?: string;
  /** Engine milliseconds until the job is due; the adapter turns it into a wall-clock delay of at most 900 s. */
  delayMs: number;
}

export interface SendQueue {
  enqueue(messages: QueueMessage[]): Promise<void>;
}

/** Ids copied from a job onto its queue message (sending/job-kind.ts says which). */
export interface JobRef {
  kind?: string;
  mailboxId?: string;
  campaignId?: string;
  [field: string]: string | undefined;
}
