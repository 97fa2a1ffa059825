import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { queryAll, publicFields } from '../collections.ts';
import { ConflictError, ConditionFailedError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Item } from '../ports/store.ts';
import { parse, verb } from '../validate.ts';
import { CreateDomain, formatAddress, UpdateDomain, DomainName } from './domain.schema.ts';
import { allDomains, domainCollection, domainKey, domainNameKey } from './keys.ts';
import { allCampaigns } from '../campaign/keys.ts';
import { allMailboxes } from '../mailbox/keys.ts';

type D = Pick<Deps, 'store' | 'wallClock'>;

export interface UsedBy {
  campaigns: number;
  sending: number;
  paused: number;
  drafts: number;
}

/**
 * usedBy (docs/api.md, Domains): the non-archived campaigns with a picked mailbox on the
 * domain, and how many of those are ACTIVE, PAUSED and DRAFT.
 */
export function usedBy(domainId: string, campaigns: Item[], mailboxes: Item[]): { usedBy: UsedBy; campaigns: Item[] } {
  const onDomain = new Set(mailboxes.filter((m) => m.domainId === domainId).map((m) => m.id));
  const using = campaigns.filter(
    (c) => c.status !== 'ARCHIVED' && ((c.mailboxIds as string[] | undefined) ?? []).some((id) => onDomain.has(id)),
  );
  const count = (s: string) => using.filter((c) => c.status === s).length;
  return {
    usedBy: { campaigns: using.length, sending: count('ACTIVE'), paused: count('PAUSED'), drafts: count('DRAFT') },
    campaigns: using,
  };
}

async function world(deps: D) {
  const [campaigns, mailboxes] = await Promise.all([
    queryAll(deps.store, allCampaigns()),
    queryAll(deps.store, allMailboxes()),
  ]);
  return { campaigns, mailboxes };
}

const toDomain = (item: Item, used: UsedBy) => ({
  ...publicFields(item, ['placementRunId', 'placementSample']),
  redirectUrl: item.redirectUrl ?? null,
  dkimSelector: item.dkimSelector ?? null,
  label: item.label ?? null,
  mailingAddress: item.mailingAddress ?? null,
  mailingAddressParts: item.mailingAddressParts ?? null,
  /** The latest domain check (hourly, or on demand); null until the first one. */
  lastCheck: item.lastCheck ?? null,
  usedBy: used,
});

/** Address fields as stored: parts, when given, write the address; a plain address drops stale parts. */
function addressFields(input: { mailingAddress?: string | null; mailingAddressParts?: Record<string, string | undefined> | null }) {
  if (input.mailingAddressParts) {
    const built = formatAddress(input.mailingAddressParts as never);
    if (built.length > 500) throw new ValidationError('mailingAddressParts: the address they make is longer than 500 characters.');
    return { mailingAddress: built, mailingAddressParts: input.mailingAddressParts };
  }
  if (input.mailingAddressParts === null) return { mailingAddress: input.mailingAddress ?? null, mailingAddressParts: null };
  if (input.mailingAddress !== undefined) return { mailingAddress: input.mailingAddress, mailingAddressParts: null };
  return {};
}

/** Adding a domain never needs an address (guardrail 2); launching a campaign that sends from it does. */
export const create = verb(CreateDomain, async (deps: D, input) => {
  const id = newId();
  const now = new Date(deps.wallClock.now()).toISOString();
  const item: Item = {
    ...domainKey(id),
    ...domainCollection(id),
    id,
    domainName: input.domainName,
    redirectUrl: input.redirectUrl ?? null,
    dkimSelector: input.dkimSelector ?? null,
    label: input.label ?? null,
    mailingAddress: null,
    mailingAddressParts: null,
    ...addressFields(input),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await deps.store.transact([
      { put: { ...domainNameKey(input.domainName), domainId: id }, if: { itemExists: false } },
      { put: item, if: { itemExists: false } },
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError) throw new ConflictError(`The domain ${input.domainName} is already added.`);
    throw err;
  }
  return toDomain(item, { campaigns: 0, sending: 0, paused: 0, drafts: 0 });
});

export async function list(deps: D) {
  const [domains, w] = await Promise.all([queryAll(deps.store, allDomains()), world(deps)]);
  return domains.map((d) => toDomain(d, usedBy(String(d.id), w.campaigns, w.mailboxes).usedBy));
}

export async function get(deps: Pick<Deps, 'store'>, id: string): Promise<Item> {
  const item = await deps.store.get(domainKey(id));
  if (!item) throw new NotFoundError(`There is no domain ${id}.`);
  return item;
}

/** The domain of a name, for the check route (the only route keyed by name). */
export async function getByName(deps: Pick<Deps, 'store'>, name: unknown): Promise<Item | undefined> {
  const unique = await deps.store.get(domainNameKey(parse(DomainName, name)));
  return unique ? deps.store.get(domainKey(String(unique.domainId))) : undefined;
}

/**
 * Only the fields present change. Clearing an address that launched
 * campaigns (ACTIVE or PAUSED) send with needs `confirm: true`; otherwise
 * 409 ADDRESS_IN_USE lists them, and nothing changes.
 */
export const update = verb(
  UpdateDomain.extend({ id: z.string() }),
  async (deps: D, { id, confirm, ...input }) => {
    const current = await get(deps, id);
    const address = addressFields(input);
    const set: Record<string, unknown> = { updatedAt: new Date(deps.wallClock.now()).toISOString(), ...address };
    for (const k of ['redirectUrl', 'dkimSelector', 'label'] as const) if (input[k] !== undefined) set[k] = input[k];

    const w = await world(deps);
    const use = usedBy(id, w.campaigns, w.mailboxes);
    const clearing = 'mailingAddress' in address && !address.mailingAddress && current.mailingAddress;
    if (clearing && !confirm) {
      const sending = use.campaigns.filter((c) => c.status === 'ACTIVE' || c.status === 'PAUSED');
      if (sending.length) {
        throw new ConflictError(
          `Campaigns send from this domain with its mailing address: clearing it stops their emails. Send again with "confirm": true to clear it anyway.`,
          { code: 'ADDRESS_IN_USE', campaigns: sending.map((c) => ({ id: c.id, name: c.name, status: c.status })) },
        );
      }
    }
    try {
      const after = await deps.store.update(domainKey(id), { set, if: { itemExists: true } });
      return toDomain(after, use.usedBy);
    } catch (err) {
      if (err instanceof ConditionFailedError) throw new NotFoundError(`There is no domain ${id}.`);
      throw err;
    }
  },
);
