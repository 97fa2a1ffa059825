import type { Deps } from '../deps.ts';
import { eachLimited, queryAll } from '../collections.ts';
import { ConditionFailedError, NotFoundError } from '../errors.ts';
import { verb } from '../validate.ts';
import { getByName } from '../domain/index.ts';
import { allDomains, domainKey } from '../domain/keys.ts';
import { fromItem, hasMailingAddress, type Domain } from '../domain/entity.ts';
import { runCheck, toPublic } from './check.ts';
import { CheckDomain, PublicCheck } from './deliverability.schema.ts';
import type { DomainCheck } from './types.ts';

export type { DomainCheck, PublicDomainCheck } from './types.ts';

type D = Pick<Deps, 'store' | 'dns' | 'wallClock'>;

/** Checks one stored domain with its saved selector (or a one-off one) and keeps the result as its lastCheck. */
async function checkItem(deps: D, domain: Domain, selector?: string | null): Promise<DomainCheck> {
  const result = await runCheck(deps, domain.domainName, {
    selector,
    savedSelector: domain.dkimSelector ?? null,
    hasMailingAddress: hasMailingAddress(domain),
  });
  try {
    // Not an edit by the user: updatedAt stays. A domain deleted meanwhile is not brought back.
    await deps.store.update(domainKey(domain.id), { set: { lastCheck: result }, if: { itemExists: true } });
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
  }
  return result;
}

/**
 * POST /v1/domains/{id}/check: the only domain route keyed by name (its `{id}` is the name). A name
 * the engine does not have is 404 (the public check is the one for any name).
 */
export const check = verb(CheckDomain, async (deps: D, { domain, selector }) => {
  const found = await getByName(deps, domain);
  if (!found)
    throw new NotFoundError(`There is no domain ${domain} in this engine. Add it with POST /v1/domains, or use /public/domain-check.`);
  return checkItem(deps, found, selector);
});

/**
 * The hourly check (guardrail 10) of every domain, a few at a time. One
 * domain's failure is logged and does not stop the others.
 */
export async function checkAll(deps: D & Pick<Deps, 'log'>, concurrency = 4): Promise<{ checked: number; failed: number }> {
  const items = await queryAll(deps.store, allDomains());
  let checked = 0;
  let failed = 0;
  await eachLimited(items, concurrency, async (item) => {
    try {
      await checkItem(deps, fromItem(item));
      checked++;
    } catch (err) {
      failed++;
      deps.log.error('domain check failed', { domainId: item.id, err });
    }
  });
  return { checked, failed };
}

/**
 * GET /public/domain-check: any public name, common selectors only, nothing
 * read from or written to the store, so it tells nobody which domains this
 * installation has.
 */
export const publicCheck = verb(PublicCheck, async (deps: Pick<Deps, 'dns' | 'wallClock'>, { domain }) =>
  toPublic(await runCheck(deps, domain)),
);
