/**
 * What each kind of job brings to the one send path: its planner (whom,
 * from where, what, and what its outcome changes: send-plan.ts) and its rule for
 * a send whose outcome a dead sender left unknown. The sender and the
 * dispatcher ask the job's kind and never switch on it; a new kind of email
 * is a new JobKind listed in job-kinds.ts, built by jobs.ts's factory.
 */
import type { Deps } from '../deps.ts';
import type { Key } from '../ports/store.ts';
import type { Job } from './job.entity.ts';
import type { JobRef } from '../ports/queue.ts';
import type { Reads } from './send-reads.ts';
import type { JobControl, SendOutcome, SendPlan } from './send-plan.ts';

export interface JobKind {
  /** Stored on the job as `kind`; a campaign step carries none. */
  name: string;
  /** How the queue status names it. */
  label: string;
  /** The ids of the job its planner reads by; copied onto the queue message (with the kind and the mailbox) so one batch reads it all. */
  refOf(job: Job): JobRef;
  /** The items the planner needs, named from those fields. */
  reads(ref: JobRef): Key[];
  /** Decides from what was read (no reads of its own on the common path): the plan, or why the job is not going. */
  plan(deps: Deps, job: Job, read: Reads, ctl: JobControl): Promise<SendPlan | SendOutcome>;
  /**
   * A claim whose sender died after SMTP began: the email may or may not have
   * gone, and is never resent blindly. Returns whether the job was settled
   * now (false: look again at the next tick).
   */
  settleUnknown(deps: Deps, job: Job): Promise<boolean>;
  /** A claim whose email the server is known to have taken: recorded as sent from what the claim stored on the job. */
  settleSent(deps: Deps, job: Job): Promise<void>;
}
