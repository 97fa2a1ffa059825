/** Placement samples and runs as the API shows them (sample and toRun, in placement/index.ts). */
import * as z from 'zod';
import { Verdict } from './entity.ts';

const Counts = z.object({ inbox: z.int(), spam: z.int(), missing: z.int() });

/** A domain's latest finished run, rolled up (zeros and a null sampledAt before the first). */
export const PlacementSampleView = Counts.extend({
  domainId: z.string(),
  sampledAt: z.string().nullable(),
  sampleSize: z.int(),
  byProvider: z.record(z.string(), Counts),
});
export type PlacementSampleView = z.infer<typeof PlacementSampleView>;

/** SENDING while a probe waits to be sent, READING while seeds are read, COMPLETE once rolled up. */
export const RunState = z.enum(['SENDING', 'READING', 'COMPLETE']);

export const PlacementRunView = z.object({
  id: z.string(),
  domainId: z.string(),
  status: RunState,
  campaignId: z.string().nullable(),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  seeds: z.int(),
  sent: z.int(),
  probes: z.array(
    z.object({
      seedId: z.string(),
      seedEmail: z.string(),
      provider: z.string(),
      mailboxId: z.string().nullable(),
      /** Still to send, sent and being read, or its verdict. */
      state: z.enum(['WAITING', 'READING', ...Verdict.options]),
      sentAt: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  ),
  rollup: PlacementSampleView.nullable(),
});
export type PlacementRunView = z.infer<typeof PlacementRunView>;
