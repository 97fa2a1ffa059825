/**
 * The registry of job kinds: the one place that knows every kind of email
 * the engine sends. The send path and the dispatcher look a job's kind up
 * here (sending/job-kind.ts is the contract: what a kind supplies).
 */
import type { JobRef } from './ports/queue.ts';
import { campaignStep } from './sending/campaign-send.ts';
import type { Job } from './sending/job.entity.ts';
import type { JobKind } from './sending/job-kind.ts';
import { placementProbe } from './placement/probe.ts';
import { answerKind } from './conversation/answer-send.ts';

const KINDS: JobKind[] = [campaignStep, placementProbe, answerKind];
const byName = new Map(KINDS.map((k) => [k.name, k]));

/** A kind by the name a job or a message carries; a job without one is a campaign step, as jobs always were. */
function kindNamed(name: string | undefined, whose: string): JobKind {
  const kind = byName.get(name ?? campaignStep.name);
  if (!kind) throw new Error(`${whose} is of a kind this engine does not know: ${name}.`);
  return kind;
}

export function kindOf(job: Pick<Job, 'id' | 'kind'>): JobKind {
  return kindNamed(job.kind, `The job ${job.id}`);
}

/** What a job's queue message carries so its send reads everything in one batch (ports/queue.ts). */
export function refOf(job: Job): JobRef {
  const ref: JobRef = {};
  if (job.kind) ref.kind = job.kind;
  if (job.mailboxId) ref.mailboxId = job.mailboxId;
  if (job.domainId) ref.domainId = job.domainId;
  return { ...ref, ...kindOf(job).refOf(job) };
}

/** The kind a message names, before its job is read. */
export function kindOfRef(ref: JobRef): JobKind {
  return kindNamed(ref.kind, 'A queued message');
}
