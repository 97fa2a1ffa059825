/**
 * The stored job: one shape for every kind (a campaign step, a placement
 * probe), with the fields the send path and the dispatcher read; each kind
 * adds its own (CampaignStepJob below, ProbeJob in placement/entity.ts).
 * Rows are read through fromItem, so the send path reads typed values and
 * nothing outside this module coerces a stored job field.
 */
import * as z from 'zod';
import type { Item, Key } from '../ports/store.ts';
import { dueIndex, jobCollectionIndex, jobKey } from './keys.ts';

/**
 * - SCHEDULED: waits in the table until the dispatcher queues it (due index).
 * - QUEUED: a message is on the SQS delay queue (still in the due index, for recovery).
 * - PARKED: its campaign is paused; a launch puts it back.
 * - CLAIMED: being sent right now (claimed once, before SMTP).
 * - SENT, FAILED, CANCELLED: final.
 */
export const JobState = z.enum(['SCHEDULED', 'QUEUED', 'PARKED', 'CLAIMED', 'SENT', 'FAILED', 'CANCELLED']);
export type JobState = z.infer<typeof JobState>;

/**
 * Loose: a kind's own fields (and the index keys) ride along untouched, so a
 * job read by the generic send path can be handed to its kind, which parses
 * what it needs with its own schema. Fields that only some moves write are
 * optional; `attempts` defaults to 0 as the send path always counted it.
 */
export const Job = z.looseObject({
  id: z.string(),
  /** The kind's name (sending/job-kind.ts); campaign steps carry none, as they always have. */
  kind: z.string().optional(),
  state: JobState,
  /** Engine ms. */
  dueAt: z.number(),
  /** The planned mailbox, then the one the claim chose. */
  mailboxId: z.string().optional(),
  /** That mailbox's domain (it never changes for a mailbox): the send's first batch reads it with the mailbox. */
  domainId: z.string().optional(),
  /** SMTP tries. */
  attempts: z.number().default(0),
  /** Sends that threw (sender.ts, countError). */
  sendErrors: z.number().optional(),
  createdAt: z.string().optional(),
  /** Wall ms at which the dispatcher queued it. */
  queuedAt: z.number().optional(),
  /** The claim: its id, engine time, and what it is about to send. */
  claimId: z.string().optional(),
  claimedAt: z.number().optional(),
  messageId: z.string().optional(),
  subject: z.string().optional(),
  aiGenerated: z.boolean().optional(),
  /** AI copy kept for a retry, so the provider is never paid twice. */
  aiBody: z.string().optional(),
  /** Wall ms at which SMTP began: from then on a crash is an unknown outcome. */
  smtpStartedAt: z.number().optional(),
  sentAt: z.string().optional(),
  /** Engine ms of the first Sent-folder lookup that did not find an email of unknown outcome (it is sent again only after a second miss). */
  sentMissingAt: z.number().optional(),
  /** SENT without the server's answer: a crash left the outcome unknown and no Sent folder could settle it, so it was taken as sent. */
  unconfirmed: z.boolean().optional(),
  failedAt: z.string().optional(),
  lastError: z.string().optional(),
  /** Why it was cancelled. */
  reason: z.string().optional(),
  heldUntil: z.string().optional(),
});
export type Job = z.infer<typeof Job>;

export const fromItem = (item: Item): Job => Job.parse(item);

/** A job with the key it was read under, for code that writes the row back by it. */
export const keyedFromItem = (item: Item): Job & Key => ({ ...fromItem(item), pk: item.pk, sk: item.sk });

/** The stored row of a new job: its key, the due index while it waits, and the collection it is listed in (a campaign's jobs, a run's probes). */
export function toItem(job: Job, group: string): Item {
  return {
    ...jobKey(job.id),
    ...dueIndex(job.id, job.dueAt),
    ...jobCollectionIndex(group, job.id),
    ...job,
  };
}

/** A campaign step: one lead, one step of the campaign's sequence (0 is the first email). */
export const CampaignStepJob = Job.extend({
  leadId: z.string(),
  campaignId: z.string(),
  step: z.number(),
  /** A first email's variant (docs/sending.md, Variants), set by its claim; the record counts the send under it. */
  variant: z.number().optional(),
  /** The variant whose prompt wrote the kept `aiBody`: a retry that lands on another variant writes its own. */
  aiVariant: z.number().optional(),
});
export type CampaignStepJob = z.infer<typeof CampaignStepJob>;

export const campaignStepOf = (job: Job | Item): CampaignStepJob => CampaignStepJob.parse(job);
