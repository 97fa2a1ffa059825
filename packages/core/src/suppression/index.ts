import { createHmac } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { installSecret } from '../settings/index.ts';
import { suppressionKey } from './keys.ts';

type D = Pick<Deps, 'store' | 'keys'>;
export type SuppressionReason = 'manual' | 'unsubscribe' | 'bounce' | 'complaint' | 'erased';

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
  await deps.store.put({
    ...suppressionKey(await addressHash(deps, email)),
    reason,
    createdAt: new Date(deps.wallClock.now()).toISOString(),
  });
}

/** Suppresses by the address's hash, when only the hash is left (a deleted lead's unsubscribe link). */
export async function suppressHash(deps: Pick<Deps, 'store' | 'wallClock'>, hash: string, reason: SuppressionReason): Promise<void> {
  await deps.store.put({ ...suppressionKey(hash), reason, createdAt: new Date(deps.wallClock.now()).toISOString() });
}

export async function isSuppressed(deps: D, email: string): Promise<boolean> {
  return Boolean(await deps.store.get(suppressionKey(await addressHash(deps, email))));
}

/** Which of these addresses are suppressed, in one round of batched reads (CSV import). */
export async function suppressedAmong(deps: D, emails: string[]): Promise<Set<string>> {
  const hashes = new Map<string, string>();
  for (const e of new Set(emails)) hashes.set(await addressHash(deps, e), e);
  const found = await deps.store.batchGet([...hashes.keys()].map(suppressionKey));
  return new Set(found.map((i) => hashes.get(String(i.pk).slice('SUPPRESSED#'.length))!));
}
