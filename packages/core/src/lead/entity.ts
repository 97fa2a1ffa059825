/** A stored lead: its one shape, read once from the row. */
import * as z from 'zod';
import type { Item, Key } from '../ports/store.ts';
import { leadIndexes, leadKey } from './keys.ts';

export const LEAD_STATUSES = ['NEW', 'CONTACTED', 'REPLIED', 'BOUNCED', 'COMPLETED', 'SUPPRESSED'] as const;
export const LeadStatus = z.enum(LEAD_STATUSES);
export type LeadStatus = z.infer<typeof LeadStatus>;

/** The lead's email thread: the first email's subject (follow-ups answer it) and the Message-IDs sent so far. */
export const Thread = z.object({
  firstSubject: z.string().optional(),
  messageIds: z.array(z.string()).optional(),
});
export type Thread = z.infer<typeof Thread>;

/**
 * The last bounce read for a lead, shown on its row. `hard`: the address is
 * dead or refused for good and the lead is BOUNCED; soft (full mailbox, rate
 * limit, the sender's reputation...): nothing stopped. `confirmed`: the report
 * returned an email the engine sent to this address, so it counted install-wide
 * (suppression, the bounce breaker); an unconfirmed report stops this lead only.
 */
export const LeadBounce = z.object({
  status: z.string(),
  reason: z.string(),
  hard: z.boolean(),
  diagnostic: z.string().optional(),
  /** Where it was read: the SMTP server's answer at the send, or a report in the mailbox. */
  via: z.enum(['smtp', 'report']),
  confirmed: z.boolean(),
  at: z.string(),
});
export type LeadBounce = z.infer<typeof LeadBounce>;

/**
 * The row as stored. Loose: the row also carries its keys and index
 * attributes (the mailbox pin among them), which the API projection drops and
 * the sender's conditional writes read as they are. Names a lead was stored
 * without are absent (or null in older rows); an erased row has a placeholder
 * address, no names and no thread.
 */
export const Lead = z.looseObject({
  id: z.string(),
  campaignId: z.string(),
  email: z.string(),
  status: LeadStatus,
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  company: z.string().nullish(),
  customFields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  /** The import that stored it, if one did. */
  importId: z.string().optional(),
  /** The mailbox its first email went from: every follow-up goes from it. */
  mailboxId: z.string().optional(),
  thread: Thread.optional(),
  /** The variant of the first email it was given at that email's claim, kept for good (docs/sending.md, Variants). */
  variant: z.number().optional(),
  /** How many of its replies have a positive status now: its variant's `positive` counts the lead while this is above 0. */
  positiveReplies: z.number().optional(),
  stepsSent: z.number().optional(),
  lastSentAt: z.string().optional(),
  repliedAt: z.string().optional(),
  bounce: LeadBounce.optional(),
  endedBy: z.string().optional(),
  erased: z.boolean().optional(),
  erasedAt: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Lead = z.infer<typeof Lead>;

export const fromItem = (item: Item): Lead => Lead.parse(item);

/**
 * A whole row. `seq` orders the campaign's and the install's lists (see
 * leadIndexes); the mailbox pin is set by the sender, not here.
 */
export const toItem = (l: Lead, seq: string): Item => ({ ...leadKey(l.id), ...leadIndexes(l.id, seq, l.campaignId, l.email), ...l });

/** A lead row as read with its key kept: code that writes back by the row's key takes it as it is. */
export const keyedFromItem = (item: Item): Lead & Key => ({ ...fromItem(item), pk: item.pk, sk: item.sk });

/** The install-wide count of lead rows (`total` of GET /v1/leads without a campaign). */
export const LeadCounter = z.object({ count: z.number().default(0) });
export const leadCounterFromItem = (item: Item | undefined) => LeadCounter.parse(item ?? {});

/** The lock an import holds on the campaign it stores into: two imports into one campaign take turns. */
export const ImportLock = z.object({
  importId: z.string(),
  /** Wall ms the hold lasts to; a lock without one never lapses. */
  leaseUntil: z.number().optional(),
});
export type ImportLock = z.infer<typeof ImportLock>;
export const importLockFromItem = (item: Item): ImportLock => ImportLock.parse(item);
/** Whether another import may take the lock over: its holder stopped renewing it. */
export const lapsed = (lock: ImportLock, now: number): boolean => lock.leaseUntil !== undefined && lock.leaseUntil < now;

/**
 * A lead a single create stored while an import held its campaign (see
 * importLateKey): which lead, and the fields it brought, for the import to
 * settle when it completes.
 */
export const ImportLate = z
  .object({ sk: z.string().startsWith('LATE#'), fields: z.array(z.string()).default([]) })
  .transform(({ sk, fields }) => ({ leadId: sk.slice('LATE#'.length), fields }));
export type ImportLate = z.infer<typeof ImportLate>;
export const importLateFromItem = (item: Item): ImportLate => ImportLate.parse(item);

/** What stays of a hard-deleted lead (deletedLeadKey): the salted hash of its address, so a link already sent still unsubscribes it. */
export const DeletedLead = z.object({ addressHash: z.string(), deletedAt: z.string().optional() });
export type DeletedLead = z.infer<typeof DeletedLead>;
export const deletedLeadFromItem = (item: Item): DeletedLead => DeletedLead.parse(item);

/** Where a CSV import stands. */
export const ImportStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED']);
export type ImportStatus = z.infer<typeof ImportStatus>;

export const RowError = z.object({ row: z.number(), error: z.string() });

/** A CSV import's stored progress item (importKey; lead/import/ keeps it). */
export const ImportRecord = z.object({
  importId: z.string(),
  campaignId: z.string(),
  status: ImportStatus,
  /** UPLOAD: waiting for the file (upload link); STORE: the file is read and its rows are being stored. */
  stage: z.enum(['UPLOAD', 'STORE']),
  source: z.string(),
  received: z.number().default(0),
  imported: z.number().default(0),
  duplicates: z.number().default(0),
  suppressed: z.number().default(0),
  invalid: z.number().default(0),
  rowsRead: z.number().default(0),
  errors: z.array(RowError).default([]),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  error: z.string().optional(),
  uploadExpiresAt: z.number().optional(),
  leaseUntil: z.number().default(0),
  owner: z.string().optional(),
  attempts: z.number().default(0),
  /** Set when its last worker handed it over cleanly (every batch it started was finished and counted). */
  handedOver: z.boolean().default(false),
  /** The campaign held no lead when this import started storing: rows need no existence check (see importLateKey). */
  intoEmpty: z.boolean().optional(),
});
export type ImportRecord = z.infer<typeof ImportRecord>;

export const importFromItem = (item: Item): ImportRecord => ImportRecord.parse(item);

/** What one batch counted, kept on its item. */
export const BatchCounts = z.object({
  rows: z.number(),
  imported: z.number(),
  duplicates: z.number(),
  suppressed: z.number(),
  fields: z.record(z.string(), z.number()),
});
export type BatchCounts = z.infer<typeof BatchCounts>;
export const batchCountsFromItem = (item: Item | undefined): BatchCounts => BatchCounts.parse(item);
/** A batch's item: its number is in its sort key (importBatchKey). */
const BatchItem = BatchCounts.extend({
  sk: z
    .string()
    .regex(/^BATCH#\d+$/)
    .transform((sk) => Number.parseInt(sk.slice('BATCH#'.length), 10)),
});
export const importBatchFromItem = (item: Item) => BatchItem.parse(item);
