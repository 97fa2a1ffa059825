import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { publicFields, queryAll } from '../collections.ts';
import { contentQuality } from '../copy/quality.ts';
import { ConditionFailedError, ConflictError, EngineError, NotFoundError, ValidationError } from '../errors.ts';
import type { Condition } from '../ports/store.ts';
import { newId } from '../ids.ts';
import { verb } from '../validate.ts';
import { allDomains, domainKey } from '../domain/keys.ts';
import * as domainRows from '../domain/entity.ts';
import { allMailboxes, mailboxKey } from '../mailbox/keys.ts';
import * as mailboxRows from '../mailbox/entity.ts';
import { LEAD_STATUSES, FINAL } from '../lead/sequence.ts';
import { CreateCampaign, DEFAULT_BOUNCE_RATE_THRESHOLD, MAX_VARIANTS, UpdateCampaign } from './campaign.schema.ts';
import { allCampaigns, campaignKey, counter, fieldCountKey } from './keys.ts';
import { fieldCountFromItem, fromItem, statusCount, toItem, variantsUsed, type Campaign, type NewCampaign } from './entity.ts';
import { assess, fieldsNamedBy, type LaunchContext } from './launch-check.ts';
import * as breaker from '../guardrails/breaker.ts';
import {
  perStatus,
  type CampaignRowView,
  type CampaignView,
  type LaunchCheckView,
  type LaunchedCampaignView,
  type LaunchRefusedView,
} from './campaign.view.ts';
import { startCampaign } from '../sending/first-emails.ts';
import { isPlanning } from '../sending/keys.ts';
import { eventOps } from '../webhooks/events.ts';

type D = Pick<Deps, 'store' | 'wallClock' | 'config' | 'clock'>;

/** The row as the API shows it: counters by name, internal counter attributes dropped. */
export function toCampaign(c: Campaign): CampaignView {
  // Planning bookkeeping and counter attributes are internal; the counters show by name below.
  // The variants' bookkeeping too: their version id and the winner (GET /v1/campaigns/{id}/variants shows the winner).
  const row = publicFields(c, ['planned', 'planCursor', 'planOffset', 'variantsId', 'winner', 'winnerAt']);
  for (const k of Object.keys(row)) if (k.includes('#')) delete row[k];
  return {
    ...row,
    template: c.template ?? '',
    subject: c.subject ?? null,
    aiProvider: c.aiProvider ?? null,
    unsubscribeUrlTemplate: c.unsubscribeUrlTemplate ?? null,
    mailboxIds: c.mailboxIds,
    steps: c.steps,
    schedule: c.schedule ?? null,
    variants: c.variants ?? null,
    autoWinner: c.autoWinner === true,
    webhookSecured: c.webhookSecured === true,
    leadsCount: c.leadsCount,
    sentCount: c.sentCount,
    repliesCount: c.repliesCount,
    lastActivityAt: c.lastActivityAt ?? null,
  };
}

async function mustExist(deps: Pick<Deps, 'store'>, mailboxIds: string[] | undefined): Promise<void> {
  if (!mailboxIds?.length) return;
  const found = new Set((await deps.store.batchGet(mailboxIds.map(mailboxKey))).map((m) => mailboxRows.fromItem(m).id));
  const missing = mailboxIds.find((id) => !found.has(id));
  if (missing) throw new ValidationError(`mailboxIds: there is no mailbox ${missing}.`);
}

const VARIANTS_USED = 'variants cannot change once a first email has used them: create a new campaign to test new copy.';

const quality = (c: { subject?: string | null; template?: string | null }) =>
  contentQuality({ subject: c.subject ?? null, template: c.template ?? null });

export const create = verb(CreateCampaign, async (deps: D, input) => {
  await mustExist(deps, input.mailboxIds);
  const id = newId();
  const now = new Date(deps.wallClock.now()).toISOString();
  const campaign: NewCampaign = {
    id,
    name: input.name,
    aiPromptTemplate: input.aiPromptTemplate,
    template: input.template ?? '',
    subject: input.subject ?? null,
    aiProvider: input.aiProvider ?? null,
    unsubscribeUrlTemplate: input.unsubscribeUrlTemplate ?? null,
    mailboxIds: input.mailboxIds ?? [],
    steps: input.steps ?? [],
    schedule: input.schedule ?? null,
    variants: input.variants ?? null,
    ...(input.variants ? { variantsId: newId() } : {}),
    autoWinner: input.autoWinner ?? false,
    bounceRateThreshold: DEFAULT_BOUNCE_RATE_THRESHOLD,
    pausedForBounceRate: false,
    status: 'DRAFT',
    contentQuality: quality(input),
    leadsCount: 0,
    sentCount: 0,
    repliesCount: 0,
    lastActivityAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const item = toItem(campaign);
  await deps.store.put(item, { if: { itemExists: false } });
  return toCampaign(fromItem(item));
});

export async function getItem(deps: Pick<Deps, 'store'>, id: string): Promise<Campaign> {
  const item = await deps.store.get(campaignKey(id));
  if (!item) throw new NotFoundError(`There is no campaign ${id}.`);
  return fromItem(item);
}

export async function get(deps: Pick<Deps, 'store'>, id: string) {
  return toCampaign(await getItem(deps, id));
}

/** PATCH: only the fields present change; status never does (since 1.9.0). */
export async function update(deps: D, id: string, body: unknown) {
  if (body && typeof body === 'object' && 'status' in body) {
    throw new ValidationError('status cannot be changed with PATCH: use POST /launch, POST /pause or DELETE.');
  }
  return updateFields(deps, { ...(body as object), id });
}

const updateFields = verb(UpdateCampaign.extend({ id: z.string() }), async (deps: D, { id, ...input }) => {
  const current = await getItem(deps, id);
  await mustExist(deps, input.mailboxIds);
  const set: Record<string, unknown> = { updatedAt: new Date(deps.wallClock.now()).toISOString() };
  for (const [k, v] of Object.entries(input)) if (v !== undefined) set[k] = v;
  // Resuming after the breaker: every tripped pair sends again, with a fresh window.
  // Regardless of the flag: a crash between a trip's two writes must not leave a pair that cannot be resumed.
  if (input.pausedForBounceRate === false) await breaker.resume(deps, id);
  // Variants change only until a first email has used them: a new campaign tests new copy.
  let unused: Condition | undefined;
  if (input.variants !== undefined && JSON.stringify(input.variants) !== JSON.stringify(current.variants ?? null)) {
    if (variantsUsed(current)) throw new ConflictError(VARIANTS_USED);
    set.variantsId = newId();
    unused = {
      and: Array.from({ length: MAX_VARIANTS }, (_, i) => counter.variant(i, 'assigned')).map((attr) => ({
        or: [
          { attr, exists: false },
          { attr, op: '=' as const, value: 0 },
        ],
      })),
    };
  } else delete set.variants;
  if (input.template !== undefined || input.subject !== undefined) {
    set.contentQuality = quality({
      subject: input.subject !== undefined ? input.subject : current.subject,
      template: input.template ?? current.template,
    });
  }
  try {
    return toCampaign(
      fromItem(
        await deps.store.update(campaignKey(id), { set, if: unused ? { and: [{ itemExists: true }, unused] } : { itemExists: true } }),
      ),
    );
  } catch (err) {
    // A first email took a variant between the read and this write.
    if (err instanceof ConditionFailedError && unused && (await deps.store.get(campaignKey(id)))) throw new ConflictError(VARIANTS_USED);
    if (err instanceof ConditionFailedError) throw new NotFoundError(`There is no campaign ${id}.`);
    throw err;
  }
});

/** The mailboxes a campaign picked and their domains, read in two batches. */
async function contextFor(deps: D, campaigns: Campaign[]): Promise<LaunchContext> {
  const ids = [...new Set(campaigns.flatMap((c) => c.mailboxIds))];
  const mailboxes = ids.length ? (await deps.store.batchGet(ids.map(mailboxKey))).map(mailboxRows.fromItem) : [];
  const domainIds = [...new Set(mailboxes.map((m) => m.domainId))];
  const domains = domainIds.length ? (await deps.store.batchGet(domainIds.map(domainKey))).map(domainRows.fromItem) : [];
  const one = campaigns.length === 1 ? campaigns[0]! : undefined;
  const named = one ? fieldsNamedBy(one) : [];
  const fields = one && named.length ? (await deps.store.batchGet(named.map((f) => fieldCountKey(one.id, f)))).map(fieldCountFromItem) : [];
  return {
    mailboxes: new Map(mailboxes.map((m) => [m.id, m])),
    domains: new Map(domains.map((d) => [d.id, d])),
    hasUnsubscribePage: deps.config.publicBaseUrl !== '',
    fieldCounts: new Map(fields.map((f) => [f.field, f.count])),
  };
}

export async function launchCheck(deps: D, id: string): Promise<LaunchCheckView> {
  const campaign = await getItem(deps, id);
  return assess(campaign, await contextFor(deps, [campaign]));
}

/**
 * Launch: the launch check, then ACTIVE. Refused with every problem at once
 * (422 `{ error, problems, warnings }`); warnings never block and come back
 * on success too.
 */
export async function launch(deps: D, id: string): Promise<LaunchedCampaignView> {
  const campaign = await getItem(deps, id);
  const check = assess(campaign, await contextFor(deps, [campaign]));
  if (!check.canLaunch) {
    const n = check.problems.length;
    throw new EngineError('VALIDATION', `The campaign cannot launch yet: ${n} problem${n > 1 ? 's' : ''} to fix.`, {
      problems: check.problems,
      warnings: check.warnings,
    } satisfies Omit<LaunchRefusedView, 'error'>);
  }
  const now = new Date(deps.wallClock.now()).toISOString();
  await deps.store.update(campaignKey(id), {
    set: { status: 'ACTIVE', launchedAt: campaign.launchedAt ?? now, updatedAt: now },
  });
  // Effects after the write: parked jobs resume where they stopped, and the leads are planned.
  await startCampaign(deps, id);
  return { ...toCampaign(await getItem(deps, id)), warnings: check.warnings };
}

export async function setStatus(deps: D & Pick<Deps, 'log'>, id: string, status: 'PAUSED' | 'ARCHIVED') {
  const before = await getItem(deps, id);
  const now = new Date(deps.wallClock.now()).toISOString();
  const change = { set: { status, updatedAt: now } };
  // A campaign that was sending and stops is the campaign.paused fact: its event is written with it, only if the status still is the one read.
  const event =
    status === 'PAUSED' && before.status === 'ACTIVE'
      ? await eventOps(deps, 'campaign.paused', { campaignId: id, reason: 'manual' }, `${campaignKey(id).pk}#PAUSED#${now}`)
      : [];
  if (event.length) {
    try {
      await deps.store.transact([
        { update: campaignKey(id), change: { ...change, if: { attr: 'status', op: '=', value: 'ACTIVE' } } },
        ...event,
      ]);
      return toCampaign(await getItem(deps, id));
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  }
  return toCampaign(fromItem(await deps.store.update(campaignKey(id), change)));
}

/** Progress from the status counters: how many leads are in each state and how far the campaign is. */
function progress(c: Campaign) {
  const by = perStatus((s) => statusCount(c, s));
  const total = c.leadsCount;
  const done = LEAD_STATUSES.filter((s) => FINAL.has(s)).reduce((n, s) => n + statusCount(c, s), 0);
  // A launch plans its first chunk at once and the dispatcher the rest: `planning` until every lead has its first email planned.
  return { total, ...by, percentDone: total ? Math.round((100 * done) / total) : 0, planned: c.planned, planning: isPlanning(c) };
}

/** GET /v1/campaigns: each row with its senders, launch state, progress and counters, from two collection reads. */
export async function list(deps: D): Promise<CampaignRowView[]> {
  const [campaigns, mailboxes, domains] = await Promise.all([
    queryAll(deps.store, allCampaigns()),
    queryAll(deps.store, allMailboxes()),
    queryAll(deps.store, allDomains()),
  ]);
  const ctx: LaunchContext = {
    mailboxes: new Map(mailboxes.map(mailboxRows.fromItem).map((m) => [m.id, m])),
    domains: new Map(domains.map(domainRows.fromItem).map((d) => [d.id, d])),
    hasUnsubscribePage: deps.config.publicBaseUrl !== '',
  };
  return campaigns.map(fromItem).map((c) => {
    const check = assess(c, ctx);
    const picked = c.mailboxIds.flatMap((id) => (ctx.mailboxes.has(id) ? [ctx.mailboxes.get(id)!] : []));
    return {
      ...toCampaign(c),
      senders: picked.map((m) => {
        const domain = ctx.domains.get(m.domainId);
        return {
          mailboxId: m.id,
          email: m.email,
          status: m.status,
          domainId: m.domainId,
          domainName: domain?.domainName ?? null,
          hasMailingAddress: domainRows.hasMailingAddress(domain),
        };
      }),
      launch: { canLaunch: check.canLaunch, problems: check.problems },
      progress: progress(c),
      domainsCount: new Set(picked.map((m) => m.domainId)).size,
    };
  });
}
