import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { publicFields, queryAll } from '../collections.ts';
import { ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Item, TransactOp } from '../ports/store.ts';
import * as suppression from '../suppression/index.ts';
import { Email, parse } from '../validate.ts';
import { campaignKey, counter, fieldCountKey } from '../campaign/keys.ts';
import { jobId, jobKey, PLANNING } from '../sending/keys.ts';
import { validateLead, type LeadInput } from './lead.schema.ts';
import { allLeads, allLeadsCounterKey, deletedLeadKey, leadIndexes, leadKey, leadsOfCampaign, leadUniqueKey } from './keys.ts';
import { rowsOf, suppressEverywhere, transition } from './sequence.ts';
import { planNewLead } from '../sending/planning.ts';
import { cancelOpenJobs } from '../sending/jobs.ts';
import { inboundOfLead } from '../inbound/keys.ts';

export { validateLead, LeadInput } from './lead.schema.ts';

type D = Pick<Deps, 'store' | 'keys' | 'wallClock'> & { log?: Deps['log'] };

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

/** Each lead's uniqueness item and row, all or nothing: conditional puts only, so batches never contend. */
function batchOps(campaignId: string, items: Item[]): TransactOp[] {
  return items.flatMap((item): TransactOp[] => [
    { put: { ...leadUniqueKey(campaignId, String(item.email)), leadId: item.id }, if: { itemExists: false } },
    { put: item, if: { itemExists: false } },
  ]);
}

/**
 * The counters a set of stored leads moves: the campaign's counts, the
 * install-wide total and the per-field presence counts. Atomic ADDs after the
 * rows are written (a crash between the two can leave a count short by one
 * batch; nothing is stored twice).
 */
export async function countLeads(deps: Pick<Deps, 'store'>, campaignId: string, items: Item[], sign: 1 | -1): Promise<void> {
  if (!items.length) return;
  const byStatus: Record<string, number> = {};
  const fields: Record<string, number> = {};
  for (const item of items) {
    byStatus[counter.status(String(item.status ?? 'NEW'))] = (byStatus[counter.status(String(item.status ?? 'NEW'))] ?? 0) + sign;
    for (const f of presentFields(item)) fields[f] = (fields[f] ?? 0) + sign;
  }
  await Promise.all([
    deps.store.update(campaignKey(campaignId), { add: { [counter.leads]: sign * items.length, ...byStatus } }),
    deps.store.update(allLeadsCounterKey, { add: { count: sign * items.length } }),
    ...Object.entries(fields).map(([f, n]) => deps.store.update(fieldCountKey(campaignId, f), { add: { count: n } })),
  ]);
}

/** Batches under DynamoDB's transaction limits: 100 operations (50 leads) and 4 MB (3.5 MB here, for headroom). */
function batched<T extends { item: Item }>(pending: T[]): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const p of pending) {
    const size = Buffer.byteLength(JSON.stringify(p.item)) + 200;
    if (current.length === 50 || (current.length && bytes + size > 3_500_000)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(p);
    bytes += size;
  }
  if (current.length) batches.push(current);
  return batches;
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
  const writeBatch = async (batch: typeof pending): Promise<void> => {
    while (batch.length) {
      try {
        await deps.store.transact(batchOps(campaignId, batch.map((b) => b.item)));
        created.push(...batch.map((b) => b.item));
        await countLeads(deps, campaignId, batch.map((b) => b.item), 1);
        // Progress on long work: a line per 5,000 leads stored.
        if (pending.length >= 5000 && Math.floor(created.length / 5000) > Math.floor((created.length - batch.length) / 5000)) {
          deps.log?.info('leads stored', { campaignId, stored: created.length, of: pending.length });
        }
        return;
      } catch (err) {
        if (!(err instanceof TransactionFailedError)) throw err;
        // The conditions that failed are duplicates: the same address already in the campaign.
        const failedLeads = new Set(err.failed.map((i) => Math.floor(i / 2)));
        for (const i of failedLeads) outcomes[batch[i]!.index] = 'duplicate';
        batch = batch.filter((_, i) => !failedLeads.has(i));
      }
    }
  };
  const batches = batched(pending);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, batches.length) }, async () => {
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

/** GET /v1/leads's query. */
export const ListQuery = z.strictObject({
  campaignId: z.string().min(1).max(200, { error: 'must be at most 200 characters' }).optional(),
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1, { error: 'must be from 1 to 1000' }).max(1000, { error: 'must be from 1 to 1000' }).default(100),
  cursor: z.string().optional(),
});

export async function list(deps: Pick<Deps, 'store'>, query: unknown) {
  const q = parse(ListQuery, query);
  const page = await deps.store.query(
    q.campaignId
      ? { ...leadsOfCampaign(q.campaignId), limit: q.limit, cursor: q.cursor }
      : { ...allLeads(), limit: q.limit, cursor: q.cursor },
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
/** DELETE /v1/leads/erase's body. */
export const EraseInput = z.strictObject({ email: Email });

export async function erase(deps: D, body: unknown): Promise<{ erased: number }> {
  const { email } = parse(EraseInput, body);
  await suppression.suppress(deps, email, 'erased');
  let erased = 0;
  for (const lead of await rowsOf(deps, email)) {
    await transition(deps, lead, 'SUPPRESSED');
    await deps.store.transact([
      {
        update: leadKey(String(lead.id)),
        change: {
          set: { email: `erased-${lead.id}@erased.invalid`, customFields: {}, erased: true, erasedAt: new Date(deps.wallClock.now()).toISOString() },
          remove: ['firstName', 'lastName', 'company', 'thread', 'gsi2pk', 'gsi2sk', 'gsi4pk', 'gsi4sk'],
        },
      },
      { delete: leadUniqueKey(String(lead.campaignId), email) },
    ]);
    await Promise.all(presentFields(lead).map((f) => deps.store.update(fieldCountKey(String(lead.campaignId), f), { add: { count: -1 } })));
    await eraseInbound(deps, String(lead.id));
    await forgetSubjects(deps, String(lead.id));
    erased++;
  }
  return { erased };
}

/** Sent subjects carry the lead's fields too: its jobs keep their state and lose the words. */
async function forgetSubjects(deps: Pick<Deps, 'store'>, leadId: string): Promise<void> {
  for (let step = 0; step <= 3; step++) {
    const key = jobKey(jobId(leadId, step));
    if (await deps.store.get(key)) await deps.store.update(key, { remove: ['subject'] });
  }
}

/** What was read from the lead's replies and reports keeps its place in the counts and loses the person's words and address. */
async function eraseInbound(deps: Pick<Deps, 'store'>, leadId: string): Promise<void> {
  for (const item of await queryAll(deps.store, inboundOfLead(leadId))) {
    await deps.store.update({ pk: item.pk, sk: item.sk }, { set: { fromEmail: `erased-${leadId}@erased.invalid`, subject: '', snippet: '', erased: true }, remove: ['returnDate'] });
  }
}

/** Hard delete of one row; the campaign's counters follow. The address's hash stays, so a link already sent can still unsubscribe it. */
export async function remove(deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>, id: string): Promise<void> {
  const lead = await get(deps, id);
  try {
    await deps.store.transact([
      { delete: leadKey(id), if: { attr: 'status', op: '=', value: lead.status } },
      ...(lead.erased ? [] : [{ delete: leadUniqueKey(String(lead.campaignId), String(lead.email)) }]),
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError) throw new ConflictError('The lead changed while it was being deleted: try again.');
    throw err;
  }
  await countLeads(deps, String(lead.campaignId), [lead], -1);
  if (!lead.erased) {
    await deps.store.put({ ...deletedLeadKey(id), addressHash: await suppression.addressHash(deps, String(lead.email)), deletedAt: new Date(deps.wallClock.now()).toISOString() });
  }
  // Its queued emails end, and their rendered subjects go with the row.
  await cancelOpenJobs(deps, id, 'lead deleted');
  await forgetSubjects(deps, id);
  // What was read from the lead (its replies' words and address) goes with the row; the campaign's counts stay.
  for (const item of await queryAll(deps.store, inboundOfLead(id))) await deps.store.delete({ pk: item.pk, sk: item.sk });
}
