import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { publicFields } from '../collections.ts';
import { ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import * as suppression from '../suppression/index.ts';
import { Email, parse } from '../validate.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import { validateLead, type LeadInput } from './lead.schema.ts';
import { ALL_LEADS, allLeadsCounterKey, campaignLeads, leadIndexes, leadKey, leadUniqueKey } from './keys.ts';
import { rowsOf, suppressEverywhere, transition } from './sequence.ts';
import { planNewLead } from '../sending/planning.ts';
import { PLANNING } from '../sending/keys.ts';

export { validateLead, LeadInput } from './lead.schema.ts';

type D = Pick<Deps, 'store' | 'keys' | 'wallClock'>;

export const toLead = (item: Item) => ({
  ...publicFields(item),
  firstName: item.firstName ?? null,
  lastName: item.lastName ?? null,
  company: item.company ?? null,
  customFields: item.customFields ?? {},
});

/** The fields whose presence the campaign counts, for the launch check's placeholder warnings. */
function presentFields(lead: LeadInput | Item): string[] {
  const names = (['firstName', 'lastName', 'company'] as const).filter((k) => lead[k]);
  return [...names, ...Object.keys((lead.customFields as object | undefined) ?? {})];
}

async function liveCampaign(deps: Pick<Deps, 'store'>, campaignId: string): Promise<Item> {
  const campaign = await deps.store.get(campaignKey(campaignId));
  if (!campaign) throw new ValidationError(`campaignId: there is no campaign ${campaignId}.`);
  if (campaign.status === 'ARCHIVED') throw new ValidationError(`campaignId: the campaign ${campaignId} is archived.`);
  return campaign;
}

function leadItem(input: LeadInput, now: string): Item {
  const id = newId();
  return {
    ...leadKey(id),
    ...leadIndexes(id, input.campaignId, input.email),
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
  };
}

/**
 * The writes of one batch of leads, all or nothing: each lead's uniqueness
 * item and row (conditional puts), and the counters they move.
 */
function batchOps(campaignId: string, items: Item[]): TransactOp[] {
  const fields: Record<string, number> = { [counter.leads]: items.length, [counter.status('NEW')]: items.length };
  for (const item of items) for (const f of presentFields(item)) fields[counter.field(f)] = (fields[counter.field(f)] ?? 0) + 1;
  return [
    ...items.flatMap((item): TransactOp[] => [
      { put: { ...leadUniqueKey(campaignId, String(item.email)), leadId: item.id }, if: { itemExists: false } },
      { put: item, if: { itemExists: false } },
    ]),
    { update: campaignKey(campaignId), change: { add: fields, if: { itemExists: true } } },
    { update: allLeadsCounterKey, change: { add: { count: items.length } } },
  ];
}

export type IngestOutcome = 'created' | 'duplicate' | 'suppressed';

/**
 * Stores validated leads of one campaign. Suppressed addresses and
 * duplicates (same address in the campaign, case-insensitive) are skipped
 * and reported, never stored. Uniqueness is a conditional write, so two
 * concurrent ingests of one address store it once.
 */
export async function store(deps: D, campaignId: string, leads: LeadInput[]): Promise<{ outcomes: IngestOutcome[]; created: Item[] }> {
  const outcomes: IngestOutcome[] = new Array(leads.length).fill('created');
  const suppressed = await suppression.suppressedAmong(deps, leads.map((l) => l.email));
  const seen = new Set<string>();
  const pending: { index: number; item: Item }[] = [];
  const now = new Date(deps.wallClock.now()).toISOString();
  leads.forEach((lead, index) => {
    if (suppressed.has(lead.email)) outcomes[index] = 'suppressed';
    else if (seen.has(lead.email)) outcomes[index] = 'duplicate';
    else {
      seen.add(lead.email);
      pending.push({ index, item: leadItem(lead, now) });
    }
  });

  const created: Item[] = [];
  // 48 leads a transaction: 96 puts and 2 counter updates, under DynamoDB's 100.
  const batches: (typeof pending)[] = [];
  for (let i = 0; i < pending.length; i += 48) batches.push(pending.slice(i, i + 48));
  const writeBatch = async (batch: typeof pending): Promise<void> => {
    for (let attempt = 0; batch.length; attempt++) {
      try {
        await deps.store.transact(batchOps(campaignId, batch.map((b) => b.item)));
        created.push(...batch.map((b) => b.item));
        return;
      } catch (err) {
        if (err instanceof TransactionFailedError) {
          const failedLeads = new Set(err.failed.filter((i) => i < batch.length * 2).map((i) => Math.floor(i / 2)));
          if (err.failed.some((i) => i >= batch.length * 2)) throw new ValidationError(`campaignId: there is no campaign ${campaignId}.`);
          for (const i of failedLeads) outcomes[batch[i]!.index] = 'duplicate';
          batch = batch.filter((_, i) => !failedLeads.has(i));
        } else if ((err as Error).name === 'TransactionCanceledException' && attempt < 8) {
          // A conflict with a concurrent write to the counters: wait and try again.
          await new Promise((r) => setTimeout(r, 20 * 2 ** attempt + Math.random() * 20));
        } else throw err;
      }
    }
  };
  // Batches of one campaign touch the same counter item, so a few at a time.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(3, batches.length) }, async () => {
      while (next < batches.length) await writeBatch(batches[next++]!);
    }),
  );
  return { outcomes, created };
}

/**
 * Leads added to a running campaign join its plan: a few at once, a large
 * import through the dispatcher, a chunk a tick.
 */
export async function planIngested(deps: Pick<Deps, 'store' | 'clock'>, campaignId: string, created: Item[]): Promise<void> {
  if (!created.length) return;
  const campaign = await deps.store.get(campaignKey(campaignId));
  if (campaign?.status !== 'ACTIVE') return;
  if (created.length <= 20) {
    for (const lead of created) await planNewLead(deps, campaign, lead);
  } else {
    await deps.store.update(campaignKey(campaignId), { set: { planCursor: null, gsi3pk: PLANNING, gsi3sk: campaignId } });
  }
}

/** POST /v1/leads: 409 for a suppressed or duplicate lead. */
export async function create(deps: D & Pick<Deps, 'clock'>, input: unknown) {
  const lead = validateLead(input);
  await liveCampaign(deps, lead.campaignId);
  const { outcomes, created } = await store(deps, lead.campaignId, [lead]);
  await planIngested(deps, lead.campaignId, created);
  if (outcomes[0] === 'suppressed') throw new ConflictError(`${lead.email} is on the suppression list and will not be added.`);
  if (outcomes[0] === 'duplicate') throw new ConflictError(`${lead.email} is already a lead of this campaign.`);
  return toLead(created[0]!);
}

/** POST /v1/leads/webhook: the same validation; a suppressed or duplicate lead is skipped silently. */
export async function acceptWebhook(deps: D & Pick<Deps, 'clock'>, input: unknown): Promise<void> {
  const lead = validateLead(input);
  await liveCampaign(deps, lead.campaignId);
  const { created } = await store(deps, lead.campaignId, [lead]);
  await planIngested(deps, lead.campaignId, created);
}

const ListQuery = z.strictObject({
  campaignId: z.string().min(1).optional(),
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1, { error: 'must be from 1 to 1000' }).max(1000, { error: 'must be from 1 to 1000' }).default(100),
  cursor: z.string().optional(),
});

export async function list(deps: Pick<Deps, 'store'>, query: unknown) {
  const q = parse(ListQuery, query);
  const page = await deps.store.query(
    q.campaignId
      ? { index: 'gsi1', pk: campaignLeads(q.campaignId), limit: q.limit, cursor: q.cursor }
      : { index: 'gsi3', pk: ALL_LEADS, limit: q.limit, cursor: q.cursor },
  );
  const totalItem = await deps.store.get(q.campaignId ? campaignKey(q.campaignId) : allLeadsCounterKey);
  const total = Number((q.campaignId ? totalItem?.[counter.leads] : totalItem?.count) ?? 0);
  return { leads: page.items.map(toLead), total, nextCursor: page.cursor ?? null };
}

export async function get(deps: Pick<Deps, 'store'>, id: string): Promise<Item> {
  const item = await deps.store.get(leadKey(id));
  if (!item) throw new NotFoundError(`There is no lead ${id}.`);
  return item;
}

/** Suppresses the lead's address in every campaign (install-wide list) and answers the lead row. */
export async function suppress(deps: D, id: string) {
  const lead = await get(deps, id);
  await suppression.suppress(deps, String(lead.email), 'manual');
  await suppressEverywhere(deps, String(lead.email));
  return toLead(await get(deps, id));
}

/**
 * Erasure (GDPR art. 17): every row of the address, in every campaign, loses
 * its personal data; rows and aggregate counts stay; a salted hash of the
 * address stays on the suppression list so it is never mailed or ingested again.
 */
export async function erase(deps: D, body: unknown): Promise<{ erased: number }> {
  const { email } = parse(z.strictObject({ email: Email }), body);
  await suppression.suppress(deps, email, 'erased');
  let erased = 0;
  for (const lead of await rowsOf(deps, email)) {
    await transition(deps, lead, 'SUPPRESSED');
    const gone: Record<string, number> = {};
    for (const f of presentFields(lead)) gone[counter.field(f)] = -1;
    await deps.store.transact([
      {
        update: leadKey(String(lead.id)),
        change: {
          set: { email: `erased-${lead.id}@erased.invalid`, customFields: {}, erased: true, erasedAt: new Date(deps.wallClock.now()).toISOString() },
          remove: ['firstName', 'lastName', 'company', 'gsi2pk', 'gsi2sk', 'gsi4pk', 'gsi4sk'],
        },
      },
      { delete: leadUniqueKey(String(lead.campaignId), email) },
      ...(Object.keys(gone).length ? [{ update: campaignKey(String(lead.campaignId)), change: { add: gone } }] : []),
    ]);
    erased++;
  }
  return { erased };
}

/** Hard delete of one row; the campaign's counters follow. */
export async function remove(deps: Pick<Deps, 'store'>, id: string): Promise<void> {
  const lead = await get(deps, id);
  const fields: Record<string, number> = { [counter.leads]: -1, [counter.status(String(lead.status))]: -1 };
  for (const f of presentFields(lead)) fields[counter.field(f)] = -1;
  try {
    await deps.store.transact([
      { delete: leadKey(id), if: { attr: 'status', op: '=', value: lead.status } },
      ...(lead.erased ? [] : [{ delete: leadUniqueKey(String(lead.campaignId), String(lead.email)) }]),
      { update: campaignKey(String(lead.campaignId)), change: { add: fields } },
      { update: allLeadsCounterKey, change: { add: { count: -1 } } },
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError) throw new ConflictError('The lead changed while it was being deleted: try again.');
    throw err;
  }
}
