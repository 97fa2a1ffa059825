/** The answers of the domain checks (docs/api.md, Domain checks), as the API describes them. */
import * as z from 'zod';
import type { Fits } from '../view.ts';
import { CheckStatus, DkimCheckStatus, type DomainCheck, type PublicDomainCheck } from './types.ts';

/** GET /public/domain-check: exactly the six public fields (toPublic). */
export const PublicDomainCheckView = z.object({
  domain: z.string(),
  spf: CheckStatus,
  /** PENDING is reported as FAIL here. */
  dkim: CheckStatus,
  dmarc: CheckStatus,
  /** By blocklist identifier; a check kept from an older version may name other lists. */
  blocklists: z.record(z.string(), CheckStatus),
  listUnsubscribeCheck: z.string(),
});
export type PublicDomainCheckView = z.infer<typeof PublicDomainCheckView>;

/** The check of one of the installation's domains (POST /v1/domains/{id}/check, a domain's lastCheck): the six fields, the selector that decided, the records and reasons. */
export const DomainCheckView = PublicDomainCheckView.extend({
  dkim: DkimCheckStatus,
  dkimSelector: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  checkedAt: z.iso.datetime(),
});
export type DomainCheckView = z.infer<typeof DomainCheckView>;

type _Public = Fits<PublicDomainCheck, PublicDomainCheckView>;
type _Check = Fits<DomainCheck, DomainCheckView>;
