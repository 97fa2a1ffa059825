/**
 * Replies as an operator works them (docs/inbound.md, Reply statuses; docs/api.md): the list with its
 * filters, a person's changes, and what a status does. A status changes in one transaction with its
 * `reply.status_changed` event; a removal request suppresses the address as the unsubscribe button does.
 */
import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, NotFoundError, ValidationError } from '../errors.ts';
import type { Condition, Item, TransactOp } from '../ports/store.ts';
import { leadKey } from '../lead/keys.ts';
import { fromItem as leadFromItem } from '../lead/entity.ts';
import * as facts from '../lead/facts.ts';
import { timeKey } from '../sending/keys.ts';
import { parse } from '../validate.ts';
import { eventOps } from '../webhooks/events.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import { judgeCampaign, POSITIVE_STATUSES } from '../campaign/variants.ts';
import { inboundFromItem, toReply, type InboundRecord } from './entity.ts';
import { allReplies, inboundKey, repliesOfCampaign } from './keys.ts';
import { REPLY_STATUSES, ReplyStatus, type StatusSource } from './reply-status.ts';
import type { ReplyView } from './reply.view.ts';

type D = Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log'>;

const statusList = z
  .string()
  .max(500)
  .transform((s, ctx) => {
    const named = [
      ...new Set(
        s
          .split(',')
          .map((p) => p.trim().toUpperCase())
          .filter(Boolean),
      ),
    ];
    const unknown = named.filter((p) => !(REPLY_STATUSES as readonly string[]).includes(p));
    if (!named.length || unknown.length) {
      ctx.addIssue({
        code: 'custom',
        message: `must be one or more of ${REPLY_STATUSES.join(', ')}, comma-separated${unknown.length ? ` (not ${unknown.join(', ')})` : ''}`,
      });
      return z.NEVER;
    }
    return named as ReplyStatus[];
  });

/** GET /v1/replies's query. */
export const ListQuery = z.strictObject({
  campaignId: z.string().min(1).max(200, { error: 'must be at most 200 characters' }).optional(),
  mailboxId: z.string().min(1).max(200, { error: 'must be at most 200 characters' }).optional(),
  status: statusList.optional(),
  unread: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
  since: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time, like 2026-03-01T00:00:00Z' }).optional(),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be from 1 to 200' })
    .max(200, { error: 'must be from 1 to 200' })
    .default(50),
  cursor: z.string().max(2000).optional(),
});

/** Rows read from the index per round while a filter looks for matches. */
const READ_BATCH = 200;

/** The cursor says where the last answered row sat in the index: the next page starts just past it, whatever the filter skipped. */
const cursorOf = (sk: string) => Buffer.from(JSON.stringify({ before: sk })).toString('base64url');
function positionOf(cursor: string): string {
  try {
    const { before } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof before === 'string' && /^\d{15}#[\w-]+$/.test(before)) return before;
  } catch {
    // told below
  }
  throw new ValidationError('cursor: is not one this engine gave: pass nextCursor from the previous page as it came.');
}

/**
 * GET /v1/replies: replies newest first (by arrival), of one campaign or all, filtered by status, unread
 * and mailbox. A page holds `limit` matching rows whenever that many match: the index is read on past
 * rows the filter leaves out (reply rows are small; docs/performance.md counts the reads).
 */
export async function listReplies(deps: Pick<Deps, 'store' | 'clock'>, query: unknown) {
  const q = parse(ListQuery, query);
  const now = deps.clock.now();
  const wanted = new Set(q.status ?? []);
  const matches = (r: InboundRecord) =>
    (!q.mailboxId || r.mailboxId === q.mailboxId) &&
    (!wanted.size || wanted.has(r.replyStatus ?? 'NEEDS_REVIEW')) &&
    (!q.unread || (!r.read && !(r.snoozedUntil && Date.parse(r.snoozedUntil) > now)));
  const pattern = q.campaignId ? repliesOfCampaign(q.campaignId) : allReplies();
  const low = q.since ? timeKey(Date.parse(q.since)) : '0';
  // BETWEEN is inclusive: the row the cursor names is read again and passed over.
  const high = q.cursor ? positionOf(q.cursor) : '~';
  const skip = q.cursor ? high : undefined;
  const replies: ReplyView[] = [];
  let storeCursor: string | undefined;
  let last: string | undefined;
  let more = false;
  do {
    const page = await deps.store.query({ ...pattern, skBetween: [low, high], limit: READ_BATCH, cursor: storeCursor, reverse: true });
    storeCursor = page.cursor;
    const items = page.items.filter((i) => sortKeyOf(i, pattern.index) !== skip);
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const r = inboundFromItem(item);
      if (!matches(r)) continue;
      if (replies.length === q.limit) {
        more = true;
        break;
      }
      replies.push(toReply(r));
      last = sortKeyOf(item, pattern.index);
    }
    if (more) break;
  } while (storeCursor);
  return { replies, nextCursor: more && last ? cursorOf(last) : null };
}

const sortKeyOf = (item: Item, index: string | undefined) => String(item[`${index ?? 'gsi1'}sk`]);

/** Statuses a person may set: every status but the engine's own "cannot tell". */
const PersonStatus = ReplyStatus.exclude(['NEEDS_REVIEW'], {
  error: `must be one of ${REPLY_STATUSES.filter((s) => s !== 'NEEDS_REVIEW').join(', ')} (NEEDS_REVIEW is the engine's own verdict)`,
});

/** PATCH /v1/replies/{id}'s body. */
export const UpdateReply = z
  .strictObject({
    status: PersonStatus.optional(),
    read: z.boolean({ error: 'must be true or false' }).optional(),
    snoozedUntil: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 time, like 2026-03-01T09:00:00Z, or null' })
      .nullable()
      .optional(),
  })
  .refine((b) => b.status !== undefined || b.read !== undefined || b.snoozedUntil !== undefined, {
    error: 'give at least one of status, read and snoozedUntil',
  });

/** The reply row of an id, or 404: auto-replies, bounces and complaints are not replies. */
async function replyOf(deps: Pick<Deps, 'store'>, id: string): Promise<InboundRecord> {
  const item = id.length <= 64 ? await deps.store.get(inboundKey(id), { consistent: true }) : undefined;
  const r = item && inboundFromItem(item);
  if (!r || r.kind !== 'REPLY') throw new NotFoundError('No reply has this id.');
  return r;
}

/** What moving a reply to `status` writes, with its event when the status changes; `if` holds it to the row as read. */
async function statusChange(deps: D, r: InboundRecord, status: ReplyStatus, source: Exclude<StatusSource, 'rules'>) {
  const previous = r.replyStatus ?? 'NEEDS_REVIEW';
  const version = r.statusVersion ?? 0;
  const set: Record<string, unknown> = { replyStatus: status, statusSource: source };
  const ifUnchanged: Condition = version ? { attr: 'statusVersion', op: '=', value: version } : { attr: 'statusVersion', exists: false };
  if (status === previous) return { set, ops: [] as TransactOp[], ifUnchanged };
  set.statusVersion = version + 1;
  // Each change is its own fact: keyed by the reply and the change's number, so a retried write makes the same event.
  const ops = await eventOps(
    deps,
    'reply.status_changed',
    { replyId: r.id, leadId: r.leadId, campaignId: r.campaignId, status, previousStatus: previous, source },
    `${inboundKey(r.id).pk}#STATUS#${version + 1}`,
  );
  return { set, ops, ifUnchanged };
}

/** Tries of a status change whose write found the reply or its lead's positive count moved since it was read. */
const TRIES = 6;

/** PATCH /v1/replies/{id}: a person's status (never changed afterwards by the rules or the AI), read, snooze. */
export async function updateReply(deps: D, id: string, body: unknown): Promise<ReplyView> {
  const change = parse(UpdateReply, body);
  for (let attempt = 1; ; attempt++) {
    const r = await replyOf(deps, id);
    let set: Record<string, unknown> = {};
    let ops: TransactOp[] = [];
    let ifUnchanged: Condition = { itemExists: true };
    let share: PositiveShare | undefined;
    if (change.status) {
      ({ set, ops, ifUnchanged } = await statusChange(deps, r, change.status, 'person'));
      // The lead's variant counts it positive while one of its replies is (campaign/variants.ts): moved in this very write.
      share = await positiveShare(deps, r, change.status);
      set = { ...set, ...share.set };
      ifUnchanged = { and: [ifUnchanged, share.ifCounted] };
      ops = [...ops, ...share.ops];
    }
    if (change.read !== undefined) set.read = change.read;
    if (change.snoozedUntil !== undefined)
      set.snoozedUntil = change.snoozedUntil === null ? null : new Date(change.snoozedUntil).toISOString();
    try {
      await deps.store.transact([{ update: inboundKey(id), change: { set, if: { and: [{ itemExists: true }, ifUnchanged] } } }, ...ops]);
    } catch (err) {
      // Another change went first (the AI's, another person's, another reply of the lead moving its positive count): read again and apply this one over it.
      if (err instanceof ConditionFailedError && attempt < TRIES) continue;
      throw err;
    }
    const after = { ...r, ...set } as InboundRecord;
    if (share?.crossedUp) await judgeCampaign(deps, r.campaignId);
    // Setting UNSUBSCRIBE acts as the unsubscribe button does; moving away from it lifts nothing.
    if (change.status === 'UNSUBSCRIBE') await removalRequested(deps, after);
    return toReply(after);
  }
}

/**
 * The AI's reading of a reply the rules left NEEDS_REVIEW: applied only while the rules' verdict still
 * stands (a person may have set a status meanwhile). True when the status changed.
 */
export async function applyAiStatus(deps: D, read: InboundRecord, status: ReplyStatus, also: TransactOp[]): Promise<boolean> {
  let r = read;
  for (let attempt = 1; ; attempt++) {
    const { set, ops, ifUnchanged } = await statusChange(deps, r, status, 'ai');
    const share = await positiveShare(deps, r, status);
    const stillTheRules: Condition = {
      and: [
        ifUnchanged,
        share.ifCounted,
        { attr: 'replyStatus', op: '=', value: 'NEEDS_REVIEW' },
        { attr: 'statusSource', op: '=', value: 'rules' },
      ],
    };
    try {
      await deps.store.transact([
        { update: inboundKey(r.id), change: { set: { ...set, ...share.set }, if: stillTheRules } },
        ...ops,
        ...share.ops,
        ...also,
      ]);
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      // A person (or another reading) changed the reply: their status stands. Only the lead's count moved: try again over it.
      const row = await deps.store.get(inboundKey(r.id), { consistent: true });
      const now = row && inboundFromItem(row);
      if (!now || now.statusSource !== 'rules' || now.replyStatus !== 'NEEDS_REVIEW' || (now.statusVersion ?? 0) !== (r.statusVersion ?? 0))
        return false;
      if (attempt >= TRIES) throw err;
      r = now;
      continue;
    }
    if (share.crossedUp) await judgeCampaign(deps, r.campaignId);
    if (status === 'UNSUBSCRIBE') await removalRequested(deps, r);
    return true;
  }
}

/** What a status change adds to its own transaction so that its lead's positive count moves with it. */
export interface PositiveShare {
  /** For the reply's row: whether its lead's count now counts it. */
  set: { countedPositive?: boolean };
  /** For the reply's write: it is still counted as it was read. */
  ifCounted: Condition;
  /** The lead's count, and the variant's `positive` when the count crosses 0. */
  ops: TransactOp[];
  /** The variant's `positive` went up: the winner may be due (judged after the write). */
  crossedUp: boolean;
}

/**
 * The operations that keep a reply's share of its lead's positive count in
 * line with the status `status` it is being given, for the status change's
 * own transaction: the reply keeps whether it is counted
 * (`countedPositive`), the lead how many of its replies are
 * (`positiveReplies`), and the lead's variant counts the lead in `positive`
 * while that is above 0. So a lead with two positive replies counts once, a
 * person moving the last one away takes it out, and no crash can leave a
 * status without its count: they commit together or not at all. The lead's
 * count is held to the value read here (a reply of the same lead changed
 * meanwhile fails the write, which is read and tried again), the reply to
 * what was counted for it as read. The share moves from what was counted,
 * not from the previous status, so a reply counted wrong by an earlier
 * version is put right at its next change. Nothing is written for a lead
 * never given a variant (a reply follows the first email, which gives it).
 */
export async function positiveShare(
  deps: Pick<Deps, 'store'>,
  r: Pick<InboundRecord, 'leadId' | 'countedPositive'>,
  status: ReplyStatus,
): Promise<PositiveShare> {
  const positive = POSITIVE_STATUSES.has(status);
  const counted = r.countedPositive === true;
  const ifCounted: Condition = counted
    ? { attr: 'countedPositive', op: '=', value: true }
    : {
        or: [
          { attr: 'countedPositive', exists: false },
          { attr: 'countedPositive', op: '=', value: false },
        ],
      };
  const none: PositiveShare = { set: {}, ifCounted, ops: [], crossedUp: false };
  if (positive === counted) return none;
  const row = await deps.store.get(leadKey(r.leadId), { consistent: true });
  const lead = row && leadFromItem(row);
  if (!lead || lead.variant === undefined) return none;
  const held = lead.positiveReplies ?? 0;
  const delta = positive ? 1 : -1;
  const crosses = (held === 0 && delta === 1) || (held === 1 && delta === -1);
  const heldAsRead: Condition = held
    ? { attr: 'positiveReplies', op: '=', value: held }
    : {
        or: [
          { attr: 'positiveReplies', exists: false },
          { attr: 'positiveReplies', op: '=', value: 0 },
        ],
      };
  return {
    set: { countedPositive: positive },
    ifCounted,
    ops: [
      // itemExists: an ADD on a lead deleted since the read would make a row of one attribute.
      { update: leadKey(lead.id), change: { add: { positiveReplies: delta }, if: { and: [{ itemExists: true }, heldAsRead] } } },
      ...(crosses
        ? [{ update: campaignKey(lead.campaignId), change: { add: { [counter.variant(lead.variant, 'positive')]: delta } } }]
        : []),
    ],
    crossedUp: crosses && delta > 0,
  };
}

/**
 * A removal request (docs/inbound.md, Reply statuses): the lead's address is suppressed in every campaign,
 * as the unsubscribe button does (lead.unsubscribed), and a colleague who wrote it on the lead's thread is
 * suppressed too. Safe to run again.
 */
export async function removalRequested(deps: D, r: Pick<InboundRecord, 'leadId' | 'fromEmail' | 'erased'>): Promise<void> {
  const row = await deps.store.get(leadKey(r.leadId));
  const lead = row && leadFromItem(row);
  if (lead && !lead.erased) await facts.unsubscribed(deps, { email: lead.email, lead });
  const sender = r.erased ? '' : r.fromEmail.trim().toLowerCase();
  if (sender && sender !== lead?.email.toLowerCase()) await facts.suppressAddress(deps, sender, 'unsubscribe');
}
