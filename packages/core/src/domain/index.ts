import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { queryAll, publicFields } from '../collections.ts';
import { ConflictError, ConditionFailedError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { parse, verb } from '../validate.ts';
import { CreateDomain, formatAddress, UpdateDomain, DomainName } from './domain.schema.ts';
import { allDomains, domainKey, domainNameKey } from './keys.ts';
import { fromItem, nameClaimFromItem, toItem, type Domain } from './entity.ts';
import { allCampaigns } from '../campaign/keys.ts';
import * as campaignRows from '../campaign/entity.ts';
import { allMailboxes } from '../mailbox/keys.ts';
import * as mailboxRows from '../mailbox/entity.ts';
import type { AddressInUseView, DomainView, UsedByView } from './domain.view.ts';

type D = Pick<Deps, 'store' | 'wallClock'>;

export type UsedBy = UsedByView;

/**
 * usedBy (docs/api.md, Domains): the non-archived campaigns with a picked mailbox on the
 * domain, and how many of those are ACTIVE, PAUSED and DRAFT.
 */
export function usedBy(
  domainId: string,
  campaigns: campaignRows.Campaign[],
  mailboxes: mailboxRows.Mailbox[],
): { usedBy: UsedBy; campaigns: campaignRows.Campaign[] } {
  const onDomain = new Set(mailboxes.filter((m) => m.domainId === domainId).map((m) => m.id));
  const using = campaigns.filter((c) => c.status !== 'ARCHIVED' && c.mailboxIds.some((id) => onDomain.has(id)));
  const count = (s: string) => using.filter((c) => c.status === s).length;
  return {
    usedBy: { campaigns: using.length, sending: count('ACTIVE'), paused: count('PAUSED'), drafts: count('DRAFT') },
    campaigns: using,
  };
}

async function world(deps: D) {
  const [campaigns, mailboxes] = await Promise.all([queryAll(deps.store, allCampaigns()), queryAll(deps.store, allMailboxes())]);
  return { campaigns: campaigns.map(campaignRows.fromItem), mailboxes: mailboxes.map(mailboxRows.fromItem) };
}

const toDomain = (d: Domain, used: UsedBy): DomainView => ({
  ...publicFields(d, ['placementRunId', 'placementSample']),
  redirectUrl: d.redirectUrl ?? null,
  dkimSelector: d.dkimSelector ?? null,
  label: d.label ?? null,
  mailingAddress: d.mailingAddress ?? null,
  mailingAddressParts: d.mailingAddressParts ?? null,
  /** The latest domain check (hourly, or on demand); null until the first one. */
  lastCheck: d.lastCheck ?? null,
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
  const domain: Domain = {
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
      { put: toItem(domain), if: { itemExists: false } },
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError) throw new ConflictError(`The domain ${input.domainName} is already added.`);
    throw err;
  }
  return toDomain(domain, { campaigns: 0, sending: 0, paused: 0, drafts: 0 });
});

export async function list(deps: D) {
  const [domains, w] = await Promise.all([queryAll(deps.store, allDomains()), world(deps)]);
  return domains.map(fromItem).map((d) => toDomain(d, usedBy(d.id, w.campaigns, w.mailboxes).usedBy));
}

export async function get(deps: Pick<Deps, 'store'>, id: string): Promise<Domain> {
  const item = await deps.store.get(domainKey(id));
  if (!item) throw new NotFoundError(`There is no domain ${id}.`);
  return fromItem(item);
}

/** The domain of a name, for the check route (the only route keyed by name). */
export async function getByName(deps: Pick<Deps, 'store'>, name: unknown): Promise<Domain | undefined> {
  const unique = await deps.store.get(domainNameKey(parse(DomainName, name)));
  if (!unique) return undefined;
  const item = await deps.store.get(domainKey(nameClaimFromItem(unique).domainId));
  return item && fromItem(item);
}

/**
 * Only the fields present change. Clearing an address that launched
 * campaigns (ACTIVE or PAUSED) send with needs `confirm: true`; otherwise
 * 409 ADDRESS_IN_USE lists them, and nothing changes.
 */
export const update = verb(UpdateDomain.extend({ id: z.string() }), async (deps: D, { id, confirm, ...input }) => {
  const current = await get(deps, id);
  const address = addressFields(input);
  const set: Record<string, unknown> = { updatedAt: new Date(deps.wallClock.now()).toISOString(), ...address };
  for (const k of ['redirectUrl', 'dkimSelector', 'label'] as const) if (input[k] !== undefined) set[k] = input[k];

  const w = await world(deps);
  const use = usedBy(id, w.campaigns, w.mailboxes);
  const clearing = 'mailingAddress' in address && !address.mailingAddress && current.mailingAddress;
  if (clearing && !confirm) {
    const sending = use.campaigns.flatMap((c) =>
      c.status === 'ACTIVE' || c.status === 'PAUSED' ? [{ id: c.id, name: c.name, status: c.status }] : [],
    );
    if (sending.length) {
      throw new ConflictError(
        `Campaigns send from this domain with its mailing address: clearing it stops their emails. Send again with "confirm": true to clear it anyway.`,
        { code: 'ADDRESS_IN_USE', campaigns: sending } satisfies Omit<AddressInUseView, 'error'>,
      );
    }
  }
  try {
    const after = await deps.store.update(domainKey(id), { set, if: { itemExists: true } });
    return toDomain(fromItem(after), use.usedBy);
  } catch (err) {
    if (err instanceof ConditionFailedError) throw new NotFoundError(`There is no domain ${id}.`);
    throw err;
  }
});
