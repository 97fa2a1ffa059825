import * as z from 'zod';

/** The statuses of a domain check (docs/api.md, Domain checks). */
export const CheckStatus = z.enum(['PASS', 'FAIL']);
export type Status = z.infer<typeof CheckStatus>;
/** DKIM alone may be PENDING: no selector is known and none of the common ones matched. */
export const DkimCheckStatus = z.enum([...CheckStatus.options, 'PENDING']);
export type DkimStatus = z.infer<typeof DkimCheckStatus>;

/** docs/api.md, Domain checks: the three blocklist operators, by identifier, with the zone each is queried under. */
export const BLOCKLISTS = {
  'spamhaus-dbl': 'dbl.spamhaus.org',
  surbl: 'multi.surbl.org',
  uribl: 'multi.uribl.com',
} as const;
export type BlocklistId = keyof typeof BLOCKLISTS;

export interface BlocklistDetail {
  /** The name that was looked up: <domain>.<zone>. */
  query: string;
  /** The A answers, if any. */
  answers: string[];
  /**
   * Whether the operator gave a verdict. False when it refused the query (it
   * refuses lookups through public and cloud resolvers), answered an error
   * code, or did not answer: the status is then PASS, but nothing was checked.
   */
  checked: boolean;
  reason: string;
}

/** Per check: the records found and, in plain words, why it passed or failed. */
export type CheckDetails = {
  spf: { records: string[]; lookups: number; reason: string };
  dkim: { selectorsTried: string[]; records: string[]; reason: string };
  dmarc: { records: string[]; policy: string | null; reason: string };
  blocklists: Record<BlocklistId, BlocklistDetail>;
};

/** The answer of POST /v1/domains/{id}/check (by name), and what is stored as a domain's lastCheck. */
export interface DomainCheck {
  domain: string;
  spf: Status;
  dkim: DkimStatus;
  dmarc: Status;
  blocklists: Record<BlocklistId, Status>;
  listUnsubscribeCheck: string;
  /** The selector whose record decided the DKIM status, or null when none was found. */
  dkimSelector: string | null;
  details: CheckDetails;
  checkedAt: string;
}

/** GET /public/domain-check: exactly these six public fields (docs/api.md), PENDING reported as FAIL. */
export interface PublicDomainCheck {
  domain: string;
  spf: Status;
  dkim: Status;
  dmarc: Status;
  blocklists: Record<BlocklistId, Status>;
  listUnsubscribeCheck: string;
}
