import { createHmac } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { installSecret } from '../settings/index.ts';
import { allSuppressions, suppressionKey } from './keys.ts';
import { fromItem, indexedFromItem, toItem, type SuppressionReason } from './entity.ts';
import { installRecordKey } from '../settings/keys.ts';
import type { TransactOp } from '../ports/store.ts';

type D = Pick<Deps, 'store' | 'keys'>;
export type { SuppressionReason } from './entity.ts';

/**
 * The install-wide suppression list, by address. Entries are keyed by an
 * HMAC of the normalized address under an installation secret, so an erased
 * address stays suppressed while the address itself is gone.
 */
export async function addressHash(deps: D, email: string): Promise<string> {
  return (await addressHasher(deps))(email);
}

/** The same hash, synchronous once the salt is read: a bulk import hashes 50,000 addresses. */
export async function addressHasher(deps: D): Promise<(email: string) => string> {
  const salt = await installSecret(deps, 'SUPPRESSION_SALT');
  return (email) => createHmac('sha256', salt).update(email.trim().toLowerCase()).digest('base64url');
}

export async function suppress(deps: D & Pick<Deps, 'wallClock'>, email: string, reason: SuppressionReason): Promise<void> {
  const hash = await addressHash(deps, email);
  await deps.store.put(toItem(hash, reason, new Date(deps.wallClock.now()).toISOString()));
}

/** The list entry's write, for a caller's transaction (a bounce writes it with the lead's move). */
export async function suppressOp(
  deps: D & Pick<Deps, 'wallClock'>,
  email: string,
  reason: SuppressionReason,
): Promise<Extract<TransactOp, { put: unknown }>> {
  return { put: toItem(await addressHash(deps, email), reason, new Date(deps.wallClock.now()).toISOString()) };
}

/** Suppresses by the address's hash, when only the hash is left (a deleted lead's unsubscribe link). */
export async function suppressHash(deps: Pick<Deps, 'store' | 'wallClock'>, hash: string, reason: SuppressionReason): Promise<void> {
  await deps.store.put(toItem(hash, reason, new Date(deps.wallClock.now()).toISOString()));
}

export async function isSuppressed(deps: D, email: string): Promise<boolean> {
  return Boolean(await deps.store.get(suppressionKey(await addressHash(deps, email))));
}

/** Which of these addresses are suppressed, in one round of batched reads (CSV import). */
export async function suppressedAmong(deps: D, emails: string[]): Promise<Set<string>> {
  const hashes = new Map<string, string>();
  for (const e of new Set(emails)) hashes.set(await addressHash(deps, e), e);
  const found = await deps.store.batchGet([...hashes.keys()].map(suppressionKey));
  return new Set(found.map((i) => hashes.get(fromItem(i).hash)!));
}

/** Pages of the suppression index read at most (about 100,000 entries); a longer list is looked up address by address. */
const MAX_LIST_PAGES = 10;

/**
 * The whole suppression list as a set of address hashes, read from its index
 * in a few requests, for a bulk import to test 50,000 addresses in memory;
 * undefined where the index is not complete (an installation older than it)
 * or the list is too long to read whole. The index is eventually consistent:
 * an address suppressed in the last moment may be missed here, and the
 * send-time check, a consistent read, still stops its email.
 */
export async function suppressionList(deps: D): Promise<Set<string> | undefined> {
  await installSecret(deps, 'SUPPRESSION_SALT');
  if (!(await deps.store.get(installRecordKey))?.suppressionsIndexed) return undefined;
  const hashes = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const out = await deps.store.query({ ...allSuppressions(), cursor });
    for (const item of out.items) hashes.add(indexedFromItem(item).hash);
    cursor = out.cursor;
    if (!cursor) return hashes;
  }
  return undefined;
}
