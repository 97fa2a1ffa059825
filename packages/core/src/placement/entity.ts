/**
 * The stored shapes of a placement run: the run itself, and its probes,
 * which are send jobs (sending/job.entity.ts) with the seed they sample and,
 * once read, their verdict. Read through these, so the run's code never
 * coerces a stored field.
 */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { Job } from '../sending/job.entity.ts';
import type { PlacementRollup } from './placement.schema.ts';
import { runIndexes, runKey } from './keys.ts';

export const RunStatus = z.enum(['OPEN', 'COMPLETE']);

/** What a run sends, fixed when it starts: the campaign's first email, or the copy given. */
export const ProbeCopy = z.object({
  subject: z.string(),
  body: z.string(),
  /** The campaign's own unsubscribe page, when the copy is a campaign's. */
  unsubscribeUrlTemplate: z.string().nullish(),
});
export type ProbeCopy = z.infer<typeof ProbeCopy>;

export const Run = z.looseObject({
  id: z.string(),
  domainId: z.string(),
  status: RunStatus,
  copy: ProbeCopy,
  /** The campaign whose first email is sampled, or null for copy given with the run. */
  campaignId: z.string().nullish(),
  /** Wall time, as the API shows it. */
  startedAt: z.string(),
  /** Engine ms: the run's timeout counts from it. */
  startedAtMs: z.number(),
  completedAt: z.string().optional(),
  rollup: z.custom<PlacementRollup>().optional(),
});
export type Run = z.infer<typeof Run>;

export const runFromItem = (item: Item): Run => Run.parse(item);

/** An open run's row: listed under its domain and among the open runs the placement tick moves on (runIndexes). */
export const runToItem = (run: Run): Item => ({ ...runKey(run.id), ...runIndexes(run), ...run });

/** A probe's verdict: where the sample landed, or SKIPPED when it says nothing about placement. */
export const Verdict = z.enum(['INBOX', 'SPAM', 'MISSING', 'SKIPPED']);
export type Verdict = z.infer<typeof Verdict>;

/** A probe: a send job from the mailbox the run chose to one seed inbox, then the reads of that inbox. */
export const ProbeJob = Job.extend({
  runId: z.string(),
  domainId: z.string(),
  /** Chosen when the run starts; only this mailbox sends it. */
  mailboxId: z.string(),
  seedId: z.string(),
  seedEmail: z.string(),
  provider: z.string(),
  placement: Verdict.optional(),
  placementReason: z.string().optional(),
  /** Engine ms of the send (or of the claim, for an unknown outcome): reads count from it. */
  sentAtMs: z.number().optional(),
  /** The send's outcome is unknown: a missing sample then says nothing about placement. */
  unknownOutcome: z.boolean().optional(),
  /** Engine ms of the last look at the seed inbox, and how many looks so far. */
  lastReadAt: z.number().optional(),
  reads: z.number().optional(),
});
export type ProbeJob = z.infer<typeof ProbeJob>;

export const probeFromItem = (item: Item | Job): ProbeJob => ProbeJob.parse(item);
