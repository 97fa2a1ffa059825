/** GET /v1/queue/status as the API shows it (status, in queue/index.ts). */
import * as z from 'zod';

/** A listed job: on the queue and due (waiting), being sent (active), or planned for later (delayed). */
export const ListedJobState = z.enum(['waiting', 'active', 'delayed']);
export type ListedJobState = z.infer<typeof ListedJobState>;

export const QueueStatusView = z.object({
  counts: z.object({ waiting: z.int(), active: z.int(), delayed: z.int(), completed: z.int(), failed: z.int(), unconfirmed: z.int() }),
  isPaused: z.boolean(),
  jobs: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      campaignId: z.string().nullable(),
      leadId: z.string().nullable(),
      step: z.int().optional(),
      mailboxId: z.string().nullable(),
      state: ListedJobState,
      dueAt: z.iso.datetime(),
      attempts: z.int(),
      lastError: z.string().nullable(),
    }),
  ),
  throttling: z.object({ cadenceFloorSeconds: z.int(), jitterSeconds: z.int() }),
});
export type QueueStatusView = z.infer<typeof QueueStatusView>;
