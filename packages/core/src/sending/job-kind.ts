/**
 * The job-kind contract, whole: what each kind of job (a campaign step, a
 * placement probe) brings to the one send path. A kind names the reads its
 * planner needs, and its planner turns what was read into a SendPlan (whom,
 * from where, what, and what its outcome changes) or an outcome without a
 * send; it also settles a send whose outcome a dead sender left unknown. The
 * sender and the dispatcher ask the job's kind and never switch on it; a new
 * kind of email is a new JobKind listed in job-kinds.ts (the registry),
 * built by jobs.ts's factory. The implementations live with their nouns
 * (sending/campaign-send.ts, placement/probe.ts).
 */
import type { Deps } from '../deps.ts';
import type { Condition, Key, TransactOp } from '../ports/store.ts';
import type { JobRef } from '../ports/queue.ts';
import type { Domain } from '../domain/entity.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import type { Composed } from './compose.ts';
import type { Job } from './job.entity.ts';
import type { Reads } from './read-batch.ts';
import type { SmtpBounce } from './smtp-bounce.ts';
import type { SendWindow } from './due.ts';

/** `unconfirmed`: the connection broke after the message may have been taken; the plan decided (taken as sent, or left to the Sent folder). */
export type SendOutcome = 'sent' | 'unconfirmed' | 'ignored' | 'rescheduled' | 'parked' | 'cancelled' | 'failed' | 'bounced';

/** What a planner may do with a queued job instead of sending it. */
export interface JobControl {
  now: number;
  /**
   * The window the email must start in (the lead's campaign schedule in its
   * zone), set by the planner once it has read whom the job is for. Every
   * reschedule waits for it, and the send path checks it again at the send.
   */
  open?: SendWindow;
  /** Back to SCHEDULED, due then (never before now; inside `open`). */
  reschedule(dueAt: number, lastError?: string): Promise<SendOutcome>;
  /** Ends the job without sending. */
  cancel(reason: string): Promise<SendOutcome>;
  /** Holds it until its campaign is launched again. */
  park(): Promise<SendOutcome>;
}

/**
 * What differs between the kinds of email the engine sends (a campaign
 * step, a placement sample): whom it goes to, from which mailboxes, what it
 * says, and what its outcome changes. Everything else, the guardrails
 * included, is the one send path in sender.ts.
 */
export interface SendPlan {
  /** The mailboxes it may go from, in order of preference. */
  mailboxIds: string[];
  /** Only these will do (a follow-up's pinned mailbox, a sample's chosen one): if one is deleted the job ends. */
  pinned: boolean;
  /** The recipient: the send path refuses it just before SMTP while suppressed (guardrail 3); the planner has refused it already if it was suppressed before. */
  to: string;
  /** Composing it costs a paid AI call (the send then checks suppression and its time budget before composing). */
  paid: boolean;
  /** The campaign whose bounce breaker guards each (campaign, mailbox) pair; none for a sample. */
  breakerCampaignId?: string;
  /**
   * A condition that must still hold when SMTP starts, checked in the same
   * write that marks the start (a campaign step: the lead has not replied,
   * bounced or been stopped meanwhile). When it fails the job is cancelled with `reason`.
   */
  guard?: { key: Key; if: Condition; reason: string; set?: Record<string, unknown> };
  /**
   * A count the claim moves under a condition on figures the send read (a
   * first email's variant, kept even across variants): refused, the sender
   * reads the kind's items again and plans again. Off the common path.
   */
  balance?: TransactOp;
  /** What the claim writes on the job besides its own fields (a first email's variant). */
  claimSet?: Record<string, unknown>;
  /** The variant the copy comes from: AI copy kept for another variant is not reused. */
  copyVariant?: number;
  /** What else stops when the recipient turns out to be suppressed. */
  onSuppressed(): Promise<void>;
  /** The email, from the chosen mailbox (with AI copy written for an earlier try, when there is some). Throws GuardrailError when a guardrail refuses it. */
  compose(mailbox: Mailbox, domain: Domain, aiBody?: string): Promise<Composed>;
  /** Written the moment SMTP said yes. */
  recordSent(held: Job, mailbox: Mailbox, composed: Composed): Promise<void>;
  /** A hard bounce at RCPT or DATA (smtp-bounce.ts): the server's answer read as a bounce notice is. */
  recordBounce(held: Job, mailbox: Mailbox, lastError: string, bounce: SmtpBounce): Promise<void>;
  /** The connection broke after the message may have been taken: never resent blindly. */
  recordUnknown(held: Job, mailbox: Mailbox, composed: Composed): Promise<void>;
}

/** One kind of job: how its queue message names its reads, its planner, and how a claim its sender left is settled. */
export interface JobKind {
  /** Stored on the job as `kind`; a campaign step carries none. */
  name: string;
  /** How the queue status names it. */
  label: string;
  /**
   * A person is waiting for it (an answer to a reply): no queue pause, cadence floor or daily cap holds it,
   * though the send still counts toward the mailbox's day, and it has no breaker or window (its plan sets none).
   * Every guardrail on the email itself still applies, and so does the suppression list at the claim.
   */
  unthrottled?: boolean;
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
