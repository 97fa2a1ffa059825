import type { Deps } from '../deps.ts';
import { checkBlocklist } from './blocklists.ts';
import { checkDkim } from './dkim.ts';
import { checkDmarc } from './dmarc.ts';
import { checkSpf } from './spf.ts';
import { BLOCKLISTS, type BlocklistId, type DomainCheck, type PublicDomainCheck, type Status } from './types.ts';

export interface CheckOptions {
  /** A one-off selector given with the check; it overrides the saved one. */
  selector?: string | null;
  /** The domain's saved dkimSelector. */
  savedSelector?: string | null;
  /** Whether the domain has a mailing address; undefined when it is not a domain of this engine (public check). */
  hasMailingAddress?: boolean;
}

/**
 * Guardrail 4 is not something DNS can show: the engine writes List-Unsubscribe
 * and List-Unsubscribe-Post on every send itself. The sentence says so, and
 * for a domain of this engine without an address, that its sends are refused
 * (guardrail 1).
 */
export function listUnsubscribeSentence(domain: string, hasMailingAddress?: boolean): string {
  const headers =
    'This engine adds List-Unsubscribe and List-Unsubscribe-Post: List-Unsubscribe=One-Click (RFC 8058 one-click unsubscribe) to every email it sends, so campaigns from ' +
    `${domain} carry them without any DNS record.`;
  if (hasMailingAddress === false) return `${headers} ${domain} has no mailing address yet, so its sends are refused until one is added.`;
  return headers;
}

/**
 * The unified domain check (guardrail 10): SPF, DKIM, DMARC and the three
 * blocklists, every lookup at once. Nothing is stored here.
 */
export async function runCheck(deps: Pick<Deps, 'dns' | 'wallClock'>, domain: string, opts: CheckOptions = {}): Promise<DomainCheck> {
  const ids = Object.keys(BLOCKLISTS) as BlocklistId[];
  const [spf, dkim, dmarc, ...lists] = await Promise.all([
    checkSpf(deps.dns, domain),
    checkDkim(deps.dns, domain, opts),
    checkDmarc(deps.dns, domain),
    ...ids.map((id) => checkBlocklist(deps.dns, domain, id)),
  ]);
  const blocklists = {} as Record<BlocklistId, Status>;
  const listDetails = {} as DomainCheck['details']['blocklists'];
  ids.forEach((id, i) => {
    const { status, ...detail } = lists[i]!;
    blocklists[id] = status;
    listDetails[id] = detail;
  });
  return {
    domain,
    spf: spf.status,
    dkim: dkim.status,
    dmarc: dmarc.status,
    blocklists,
    listUnsubscribeCheck: listUnsubscribeSentence(domain, opts.hasMailingAddress),
    dkimSelector: dkim.selector,
    details: {
      spf: { records: spf.records, lookups: spf.lookups, reason: spf.reason },
      dkim: { selectorsTried: dkim.selectorsTried, records: dkim.records, reason: dkim.reason },
      dmarc: { records: dmarc.records, policy: dmarc.policy, reason: dmarc.reason },
      blocklists: listDetails,
    },
    checkedAt: new Date(deps.wallClock.now()).toISOString(),
  };
}

/** The public result: exactly the six public fields, PENDING reported as FAIL (docs/api.md, Domain checks). */
export function toPublic(check: DomainCheck): PublicDomainCheck {
  return {
    domain: check.domain,
    spf: check.spf,
    dkim: check.dkim === 'PASS' ? 'PASS' : 'FAIL',
    dmarc: check.dmarc,
    blocklists: { ...check.blocklists },
    listUnsubscribeCheck: check.listUnsubscribeCheck,
  };
}
