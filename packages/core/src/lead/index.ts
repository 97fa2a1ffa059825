import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { publicFields, queryAll } from '../collections.ts';
import { ConditionFailedError, ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import * as suppression from '../suppression/index.ts';
import { Email, parse } from '../validate.ts';
import { campaignKey, counter, fieldCountKey } from '../campaign/keys.ts';
import * as campaignRows from '../campaign/entity.ts';
import { planningIndex } from '../sending/keys.ts';
import { validateLead, type LeadInput } from './lead.schema.ts';
import {
  allLeads,
  allLeadsCounterKey,
  deletedLeadKey,
  importLateKey,
  importLockKey,
  leadKey,
  leadsOfCampaign,
  legacyUniqueKey,
  withoutAddressIndex,
  withoutPinIndex,
} from './keys.ts';
import { suppressionKey } from '../suppression/keys.ts';
import { leadIdMaker } from './identity.ts';
import { fromItem, importLockFromItem, keyedFromItem, leadCounterFromItem, toItem, type Lead, type LeadBounce } from './entity.ts';
import { leadZone } from '../schedule/lead-zone.ts';
import { verifyWebhook, type WebhookRequest } from './webhook.ts';
import { forgetSubjects, removeAttached } from './delete.ts';
import type { LeadPageView, LeadView } from './lead.view.ts';
import { newId } from '../ids.ts';
import { rowsOf } from './sequence.ts';
import { suppressAddress } from './facts.ts';
import { planNewLead } from '../sending/first-emails.ts';
import { inboundOfLead, inboundOfSender, withoutSenderIndex } from '../inbound/keys.ts';
import { eraseLeadEvents, eraseReplySender } from '../webhooks/events.ts';
import { eraseReferralsTo, forgetReplyParts } from '../inbound/erase.ts';
import { forgetConversation, forgetReplyText } from '../conversation/erase.ts';

export { validateLead, LeadInput } from './lead.schema.ts';

type D = Pick<Deps, 'store' | 'keys' | 'wallClock'> & { log?: Deps['log'] };

/**
 * The row as the API shows it. With its campaign's schedule, the zone its
 * emails are timed in and where that came from; without one (a campaign that
 * sends at any hour) neither field is shown.
 */
export const toLead = (lead: Lead, schedule?: campaignRows.StoredSchedule | null): LeadView => ({
  ...publicFields(lead, ['importId', 'positiveReplies']),
  ...(schedule ? leadZone(lead.customFields, schedule) : {}),
  firstName: lead.firstName ?? null,
  lastName: lead.lastName ?? null,
  company: lead.company ?? null,
  customFields: lead.customFields ?? {},
  // The variant of its first email (docs/sending.md, Variants); null before that email, or without variants.
  variant: lead.variant ?? null,
  // Every lead the engine stores has one (newLead); the row's shape allows a row made without it.
  createdAt: lead.createdAt ?? '',
});

/** The fields whose presence the campaign counts, for the launch check's placeholder warnings. */
export function presentFields(lead: LeadInput | Lead): string[] {
  const names = (['firstName', 'lastName', 'company'] as const).filter((k) => lead[k]);
  return [...names, ...Object.keys(lead.customFields ?? {})];
}

export async function liveCampaign(deps: Pick<Deps, 'store'>, campaignId: string): Promise<campaignRows.Campaign> {
  const item = await deps.store.get(campaignKey(campaignId));
  if (!item) throw new ValidationError(`campaignId: there is no campaign ${campaignId}.`);
  const campaign = campaignRows.fromItem(item);
  if (campaign.status === 'ARCHIVED') throw new ValidationError(`campaignId: the campaign ${campaignId} is archived.`);
  return campaign;
}

/** A new lead as stored; `id` comes from {@link leadIdMaker}. */
export function newLead(input: LeadInput, id: string, now: string, extra: Partial<Lead> = {}): Lead {
  return {
    id,
    campaignId: input.campaignId,
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    company: input.company,
    customFields: input.customFields ?? {},
    status: 'NEW',
    createdAt: now,
    updatedAt: now,
    ...extra,
  };
}

/** The whole row of a new lead, its list order taken now. */
export const leadItem = (input: LeadInput, id: string, now: string, extra: Partial<Lead> = {}) =>
  toItem(newLead(input, id, now, extra), newId());

/**
 * The counters a set of stored leads moves: the campaign's counts, the
 * install-wide total and the per-field presence counts, as atomic ADDs.
 */
export async function countLeads(deps: Pick<Deps, 'store'>, campaignId: string, leads: Lead[], sign: 1 | -1): Promise<void> {
  if (!leads.length) return;
  const byStatus: Record<string, number> = {};
  const fields: Record<string, number> = {};
  for (const item of leads) {
    const status = counter.status(item.status);
    byStatus[status] = (byStatus[status] ?? 0) + sign;
    for (const f of presentFields(item)) fields[f] = (fields[f] ?? 0) + sign;
  }
  await Promise.all(counterChanges(campaignId, sign * leads.length, byStatus, fields).map((op) => deps.store.update(op.update, op.change)));
}

/** The counter updates for `leads` more leads (negative: fewer), as transaction operations. */
export function counterChanges(
  campaignId: string,
  leads: number,
  byStatus: Record<string, number>,
  fields: Record<string, number>,
): Extract<TransactOp, { update: unknown }>[] {
  if (!leads) return [];
  return [
    { update: campaignKey(campaignId), change: { add: { [counter.leads]: leads, ...byStatus } } },
    { update: allLeadsCounterKey, change: { add: { count: leads } } },
    ...Object.entries(fields)
      .filter(([, n]) => n)
      .map(([f, n]) => ({ update: fieldCountKey(campaignId, f), change: { add: { count: n } } })),
  ];
}

export type IngestOutcome = 'created' | 'duplicate' | 'suppressed';

/**
 * Stores one validated lead (POST /v1/leads, the webhook). A suppressed
 * address or one already in the campaign (case-insensitive) is skipped and
 * reported, never stored. The row's key is derived from the campaign and the
 * address, so its conditional put is the uniqueness rule, against a
 * concurrent create or import of the same address too.
 */
export async function store(deps: D, lead: LeadInput): Promise<{ outcome: IngestOutcome; created?: Lead }> {
  // One read for both: the suppression entry, and the uniqueness item of a lead stored before derived ids.
  const hash = await suppression.addressHash(deps, lead.email);
  const found = new Set((await deps.store.batchGet([suppressionKey(hash), legacyUniqueKey(lead.campaignId, lead.email)])).map((i) => i.pk));
  if (found.has(suppressionKey(hash).pk)) return { outcome: 'suppressed' };
  if (found.has(legacyUniqueKey(lead.campaignId, lead.email).pk)) return { outcome: 'duplicate' };
  const id = (await leadIdMaker(deps))(lead.campaignId, lead.email);
  const created = newLead(lead, id, new Date(deps.wallClock.now()).toISOString());
  try {
    await deps.store.put(toItem(created, newId()), { if: { itemExists: false } });
  } catch (err) {
    if (err instanceof ConditionFailedError) return { outcome: 'duplicate' };
    throw err;
  }
  await countLeads(deps, lead.campaignId, [created], 1);
  // Counted first, then a look for an import holding the campaign: an import either sees this lead in the
  // campaign's count (and checks for existing rows) or finds this note when it completes.
  const lock = await deps.store.get(importLockKey(lead.campaignId));
  if (lock)
    await deps.store.put({
      ...importLateKey(importLockFromItem(lock).importId, id),
      fields: presentFields(created),
      expiresAt: Math.floor(deps.wallClock.now() / 1000) + 7 * 86_400,
    });
  return { outcome: 'created', created };
}

/**
 * Leads added to a running campaign join its plan: a few at once, a large
 * import (given as a count) through the dispatcher, a chunk a tick.
 */
export async function planIngested(deps: Pick<Deps, 'store' | 'clock'>, campaignId: string, created: Lead[] | number): Promise<void> {
  const count = typeof created === 'number' ? created : created.length;
  if (!count) return;
  const item = await deps.store.get(campaignKey(campaignId));
  const campaign = item && campaignRows.fromItem(item);
  if (campaign?.status !== 'ACTIVE') return;
  if (typeof created !== 'number' && count <= 20) {
    for (const lead of created) await planNewLead(deps, campaign, lead);
  } else {
    await deps.store.update(campaignKey(campaignId), { set: { planCursor: null, ...planningIndex(campaignId) } });
  }
}

/** POST /v1/leads: 409 for a suppressed or duplicate lead. */
export async function create(deps: D & Pick<Deps, 'clock'>, input: unknown) {
  const lead = validateLead(input);
  const campaign = await liveCampaign(deps, lead.campaignId);
  const { outcome, created } = await store(deps, lead);
  if (outcome === 'suppressed') throw new ConflictError(`${lead.email} is on the suppression list and will not be added.`);
  if (outcome === 'duplicate' || !created) throw new ConflictError(`${lead.email} is already a lead of this campaign.`);
  await planIngested(deps, lead.campaignId, [created]);
  return toLead(created, campaign.schedule);
}

/**
 * POST /v1/leads/webhook: the same validation; a suppressed or duplicate lead
 * is skipped silently. A campaign with a webhook secret first checks the
 * request's token or signature (lead/webhook.ts).
 */
export async function acceptWebhook(deps: D & Pick<Deps, 'clock'>, input: unknown, req?: WebhookRequest): Promise<void> {
  const campaignId = (input as { campaignId?: unknown } | null)?.campaignId;
  if (req && typeof campaignId === 'string' && campaignId.length > 0 && campaignId.length <= 200) {
    const item = await deps.store.get(campaignKey(campaignId));
    if (item) await verifyWebhook(deps, campaignRows.fromItem(item), req);
  }
  const lead = validateLead(input);
  await liveCampaign(deps, lead.campaignId);
  const { created } = await store(deps, lead);
  if (created) await planIngested(deps, lead.campaignId, [created]);
}

/** GET /v1/leads's query. */
export const ListQuery = z.strictObject({
  campaignId: z.string().min(1).max(200, { error: 'must be at most 200 characters' }).optional(),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(1, { error: 'must be from 1 to 1000' })
    .max(1000, { error: 'must be from 1 to 1000' })
    .default(100),
  cursor: z.string().optional(),
});

export async function list(deps: Pick<Deps, 'store'>, query: unknown): Promise<LeadPageView> {
  const q = parse(ListQuery, query);
  const page = await deps.store.query(
    q.campaignId
      ? { ...leadsOfCampaign(q.campaignId), limit: q.limit, cursor: q.cursor }
      : { ...allLeads(), limit: q.limit, cursor: q.cursor },
  );
  const totalItem = await deps.store.get(q.campaignId ? campaignKey(q.campaignId) : allLeadsCounterKey);
  const one = q.campaignId && totalItem ? campaignRows.fromItem(totalItem) : undefined;
  const total = q.campaignId ? (one?.leadsCount ?? 0) : leadCounterFromItem(totalItem).count;
  const leads = page.items.map(fromItem);
  const schedules = one ? new Map([[one.id, one.schedule]]) : await schedulesOf(deps, leads);
  return { leads: leads.map((lead) => toLead(lead, schedules.get(lead.campaignId))), total, nextCursor: page.cursor ?? null };
}

/** The schedule of each campaign the leads belong to, in one batch read. */
export async function schedulesOf(
  deps: Pick<Deps, 'store'>,
  leads: Pick<Lead, 'campaignId'>[],
): Promise<Map<string, campaignRows.StoredSchedule | null | undefined>> {
  const ids = [...new Set(leads.map((l) => l.campaignId))];
  const campaigns = ids.length ? (await deps.store.batchGet(ids.map(campaignKey))).map(campaignRows.fromItem) : [];
  return new Map(campaigns.map((c) => [c.id, c.schedule]));
}

/** The lead row, with the key it was read under (the sequence's writes go by it). */
export async function get(deps: Pick<Deps, 'store'>, id: string) {
  const item = await deps.store.get(leadKey(id));
  if (!item) throw new NotFoundError(`There is no lead ${id}.`);
  return keyedFromItem(item);
}

/** Suppresses the lead's address in every campaign (install-wide list) and answers the lead row. */
export async function suppress(deps: D, id: string) {
  const lead = await get(deps, id);
  await suppressAddress(deps, lead.email, 'manual');
  const row = await get(deps, id);
  return toLead(row, (await schedulesOf(deps, [row])).get(row.campaignId));
}

/**
 * Erasure (GDPR art. 17): every row of the address, in every campaign, loses
 * its personal data; rows and aggregate counts stay; a salted hash of the
 * address stays on the suppression list so it is never mailed or ingested again.
 */
/** DELETE /v1/leads/erase's body. */
export const EraseInput = z.strictObject({ email: Email });

export async function erase(deps: D, body: unknown): Promise<{ erased: number }> {
  const { email } = parse(EraseInput, body);
  // Suppressed and stopped first, so no row is mailed while it is being erased.
  await suppressAddress(deps, email, 'erased');
  let erased = 0;
  for (const lead of await rowsOf(deps, email)) {
    // What hangs off the row first (found by its id, safe to do twice), then the row and its field counts at once: an
    // erase stopped halfway and run again finds the row still under its address and finishes it, counting once.
    await eraseInbound(deps, lead.id);
    await eraseLeadEvents(deps, lead.id);
    await forgetSubjects(deps, lead.id);
    await forgetConversation(deps, lead.id);
    try {
      await deps.store.transact([
        {
          // The row keeps its key (a keyed hash, like the suppression list's), so the address cannot come back into the campaign unnoticed.
          update: leadKey(lead.id),
          change: {
            set: {
              email: `erased-${lead.id}@erased.invalid`,
              customFields: {},
              erased: true,
              erasedAt: new Date(deps.wallClock.now()).toISOString(),
              // A bounce's diagnostic is the server's words, which may quote the address (rows stored before addresses were stripped from it).
              ...(lead.bounce ? { bounce: withoutDiagnostic(lead.bounce) } : {}),
            },
            remove: ['firstName', 'lastName', 'company', 'thread', ...withoutAddressIndex(), ...withoutPinIndex()],
            if: { and: [{ itemExists: true }, { attr: 'erased', exists: false }] },
          },
        },
        ...presentFields(lead).map((f) => ({ update: fieldCountKey(lead.campaignId, f), change: { add: { count: -1 } } })),
        // A lead stored before derived ids named the address in this key too.
        { delete: legacyUniqueKey(lead.campaignId, email) },
      ]);
    } catch (err) {
      if (!(err instanceof TransactionFailedError)) throw err;
      continue; // erased (or deleted) meanwhile: nothing left to count
    }
    erased++;
  }
  await eraseInboundFrom(deps, email);
  // A referral naming the address, in anyone's reply ("talk to jana@…").
  await eraseReferralsTo(deps, email);
  return { erased };
}

const withoutDiagnostic = ({ diagnostic: _, ...rest }: LeadBounce): LeadBounce => rest;

/** What was read from the lead's replies and reports keeps its place in the counts and loses the person's words and address. */
async function eraseInbound(deps: Pick<Deps, 'store' | 'keys'>, leadId: string): Promise<void> {
  for (const item of await queryAll(deps.store, inboundOfLead(leadId))) await blankInbound(deps, item, leadId);
}

/** What came from the address, whichever lead it was matched to (a colleague answering in a lead's thread). */
async function eraseInboundFrom(deps: Pick<Deps, 'store' | 'keys'>, email: string): Promise<void> {
  for (const item of await queryAll(deps.store, inboundOfSender(await suppression.addressHash(deps, email)))) {
    // Its reply event first (it said who wrote and what), then the record: blanking the record takes it out of this
    // index, so an erase stopped between the two and run again still finds the record and its event.
    await eraseReplySender(deps, String(item.leadId), String(item.pk));
    await blankInbound(deps, item, String(item.leadId));
  }
}

async function blankInbound(deps: Pick<Deps, 'store' | 'keys'>, item: Item, leadId: string): Promise<void> {
  // The referral's pointer, the AI's waiting words and the conversation's copy first: the record still names them if this stops halfway.
  await forgetReplyParts(deps, item);
  await forgetReplyText(deps, item);
  await deps.store.update(
    { pk: item.pk, sk: item.sk },
    {
      set: { fromEmail: `erased-${leadId}@erased.invalid`, subject: '', snippet: '', referral: null, erased: true },
      remove: ['returnDate', 'fromHash', ...withoutSenderIndex()],
    },
  );
}

/** Hard delete of one row; the campaign's counters follow. The address's hash stays, so a link already sent can still unsubscribe it. */
export async function remove(deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>, id: string): Promise<void> {
  const lead = await get(deps, id);
  try {
    await deps.store.delete(leadKey(id), { if: { attr: 'status', op: '=', value: lead.status } });
  } catch (err) {
    if (err instanceof ConditionFailedError) throw new ConflictError('The lead changed while it was being deleted: try again.');
    throw err;
  }
  await countLeads(deps, lead.campaignId, [lead], -1);
  if (!lead.erased) await deps.store.delete(legacyUniqueKey(lead.campaignId, lead.email));
  if (!lead.erased) {
    await deps.store.put({
      ...deletedLeadKey(id),
      addressHash: await suppression.addressHash(deps, lead.email),
      deletedAt: new Date(deps.wallClock.now()).toISOString(),
    });
  }
  await removeAttached(deps, id);
}
