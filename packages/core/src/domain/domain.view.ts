/** A sending domain as the API shows it (toDomain, in domain/index.ts). */
import * as z from 'zod';
import { CampaignStatus } from '../campaign/entity.ts';
import { DomainCheckView } from '../deliverability/check.view.ts';

export const UsedByView = z.object({ campaigns: z.int(), sending: z.int(), paused: z.int(), drafts: z.int() });
export type UsedByView = z.infer<typeof UsedByView>;

export const DomainView = z.object({
  id: z.string(),
  domainName: z.string(),
  redirectUrl: z.string().nullish(),
  dkimSelector: z.string().nullish(),
  label: z.string().nullish(),
  mailingAddress: z.string().nullish(),
  mailingAddressParts: z.record(z.string(), z.string().optional()).nullish(),
  /** The latest domain check (hourly, or on demand); null until the first one. */
  lastCheck: DomainCheckView.nullish(),
  usedBy: UsedByView.optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type DomainView = z.infer<typeof DomainView>;

/** The 409 of PATCH /v1/domains/{id}: the address is in use by launched campaigns. */
export const AddressInUseView = z.object({
  error: z.string(),
  code: z.literal('ADDRESS_IN_USE'),
  campaigns: z.array(z.object({ id: z.string(), name: z.string(), status: CampaignStatus.extract(['ACTIVE', 'PAUSED']) })),
});
export type AddressInUseView = z.infer<typeof AddressInUseView>;
