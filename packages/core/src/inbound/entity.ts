/** What the engine stores about inbound mail: each classified message, a mailbox's INBOX reading state, and the record of every email it sent; one shape each, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { inboundKey, leadInboundIndex, replyIndexes, senderInboundIndex } from './keys.ts';
import type { ReplyView } from './reply.view.ts';
import { Referral, ReplyStatus, StatusSource } from './reply-status.ts';

/**
 * What an inbound message turned out to be (docs/inbound.md):
 * - REPLY: the lead answered; the sequence stops and the reply is listed;
 * - AUTO_REPLY: an out-of-office or other automatic answer; recorded, nothing stops;
 * - BOUNCE: a notice that an email could not be delivered: hard (the lead
 *   bounced) or soft (noted; nothing stops);
 * - COMPLAINT: a feedback report; the address is suppressed.
 */
export const InboundKind = z.enum(['REPLY', 'AUTO_REPLY', 'BOUNCE', 'COMPLAINT']);
export type InboundKind = z.infer<typeof InboundKind>;

/** A classified inbound message, as stored. Personal fields (fromEmail, subject, snippet) are blanked by an erase. */
export const InboundRecord = z.object({
  id: z.string(),
  kind: InboundKind,
  mailboxId: z.string(),
  leadId: z.string(),
  campaignId: z.string(),
  fromEmail: z.string(),
  subject: z.string(),
  snippet: z.string(),
  /** The IMAP server's arrival time (INTERNALDATE), ISO 8601. */
  receivedAt: z.string(),
  /** A bounce's status code, reason and weight (BOUNCE only). */
  status: z.string().optional(),
  reason: z.string().optional(),
  hard: z.boolean().optional(),
  /** A report that returned an email the engine sent to this address (BOUNCE and COMPLAINT); without it the effects stay on this lead. */
  confirmed: z.boolean().optional(),
  /** An out-of-office reply's return day (YYYY-MM-DD), when it names one. */
  returnDate: z.string().optional(),
  /**
   * A reply's meaning (REPLY only; docs/inbound.md, Reply statuses). Stored as `replyStatus` because `status`
   * is a bounce's code; a reply recorded before statuses existed reads as NEEDS_REVIEW by the rules.
   */
  replyStatus: ReplyStatus.optional(),
  statusSource: StatusSource.optional(),
  /** Bumped by every change of replyStatus after the first: each change's reply.status_changed event is keyed by it. */
  statusVersion: z.number().optional(),
  referral: Referral.nullable().optional(),
  followUpOn: z.string().nullable().optional(),
  read: z.boolean().optional(),
  /** ISO 8601 (engine time): until then the reply is left out of unread=true. */
  snoozedUntil: z.string().nullable().optional(),
  erased: z.boolean().optional(),
  /** Whether this reply is counted in its lead's `positiveReplies` (inbound/replies.ts, positiveShare: moved in the status change's own write): what its next change moves from. */
  countedPositive: z.boolean().optional(),
  /** The keyed hash of fromEmail (the suppression list's), for erasure by address; absent on records older than 1.10 and once erased. */
  fromHash: z.string().optional(),
});
export type InboundRecord = z.infer<typeof InboundRecord>;

export function inboundToItem(r: InboundRecord): Item {
  const ms = Date.parse(r.receivedAt);
  return {
    ...inboundKey(r.id),
    ...(r.kind === 'REPLY' ? replyIndexes(r.id, r.campaignId, ms) : {}),
    ...leadInboundIndex(r.id, r.leadId, ms),
    ...(r.fromHash ? senderInboundIndex(r.id, r.fromHash, ms) : {}),
    ...r,
  };
}

export const inboundFromItem = (item: Item): InboundRecord => InboundRecord.parse(item);

/** The reply as GET /v1/replies shows it. */
export const toReply = (r: InboundRecord): ReplyView => ({
  id: r.id,
  campaignId: r.campaignId,
  leadId: r.leadId,
  mailboxId: r.mailboxId,
  fromEmail: r.fromEmail,
  subject: r.subject,
  snippet: r.snippet,
  receivedAt: r.receivedAt,
  status: r.replyStatus ?? 'NEEDS_REVIEW',
  statusSource: r.statusSource ?? 'rules',
  referral: r.referral ?? null,
  followUpOn: r.followUpOn ?? null,
  read: r.read ?? false,
  snoozedUntil: r.snoozedUntil ?? null,
});

/** A mailbox's INBOX reading state (one item beside the mailbox). Times: engine ms for the schedule, wall ms for the lease. */
export const InboxState = z.object({
  mailboxId: z.string(),
  uidValidity: z.number().optional(),
  lastUid: z.number().optional(),
  /** Engine time at which the mailbox is next due a read. */
  nextPollAt: z.number().default(0),
  /** Wall time of the last read's start: never more than one read a second per mailbox. */
  lastPollWallAt: z.number().default(0),
  /** Reads in a row that failed (the back-off grows with it), and the wall time before which none is tried again. */
  failures: z.number().default(0),
  retryAfter: z.number().default(0),
  lastError: z.string().optional(),
  lastPolledAt: z.string().optional(),
  leaseId: z.string().optional(),
  leaseUntil: z.number().optional(),
});
export type InboxState = z.infer<typeof InboxState>;

export const inboxStateFromItem = (mailboxId: string, item: Item | undefined): InboxState => InboxState.parse({ mailboxId, ...item });

/**
 * What the engine sent under a Message-ID (sentMessageKey), written with the
 * send's record: a reply's In-Reply-To or a report's returned original is
 * looked up here.
 */
export const SentRef = z.object({
  jobId: z.string(),
  leadId: z.string(),
  campaignId: z.string(),
  mailboxId: z.string(),
});
export type SentRef = z.infer<typeof SentRef>;

export const sentRefFromItem = (item: Item): SentRef => SentRef.parse(item);
