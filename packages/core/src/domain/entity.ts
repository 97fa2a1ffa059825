/** A stored sending domain: its one shape, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import type { DomainCheck } from '../deliverability/types.ts';
import type { PlacementRollup } from '../placement/placement.schema.ts';
import { domainCollection, domainKey } from './keys.ts';

const AddressParts = z.record(z.string(), z.string().optional());

/**
 * The row as stored. Loose: the row also carries its keys and index
 * attributes, which the API projection drops as it reads them. The results
 * other modules keep on the row (the latest check, the placement sample) are
 * written whole by their own code and read back as they were written.
 */
export const Domain = z.looseObject({
  id: z.string(),
  domainName: z.string(),
  redirectUrl: z.string().nullish(),
  dkimSelector: z.string().nullish(),
  label: z.string().nullish(),
  /** The footer's postal address (guardrail 2); a campaign cannot launch from a domain without one. */
  mailingAddress: z.string().nullish(),
  mailingAddressParts: AddressParts.nullish(),
  lastCheck: z.custom<DomainCheck>().optional(),
  /** The placement run in progress, if any: one at a time per domain. */
  placementRunId: z.string().optional(),
  placementSample: z.custom<PlacementRollup>().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Domain = z.infer<typeof Domain>;

export const fromItem = (item: Item): Domain => Domain.parse(item);

export const toItem = (d: Domain): Item => ({ ...domainKey(d.id), ...domainCollection(d.id), ...d });

/** The name's uniqueness item (one domain per name): it points at the domain that holds the name. */
export const NameClaim = z.object({ domainId: z.string() });
export type NameClaim = z.infer<typeof NameClaim>;
export const nameClaimFromItem = (item: Item): NameClaim => NameClaim.parse(item);

/** Whether the footer can be printed for mail from this domain (guardrail 2). */
export const hasMailingAddress = (d: Pick<Domain, 'mailingAddress'> | undefined): boolean =>
  typeof d?.mailingAddress === 'string' && d.mailingAddress.trim() !== '';
