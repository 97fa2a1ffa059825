/** An entry of the install-wide suppression list: one shape, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { listedHash, suppressionIndex, suppressionKey } from './keys.ts';

export const SuppressionReason = z.enum(['manual', 'unsubscribe', 'bounce', 'complaint', 'erased']);
export type SuppressionReason = z.infer<typeof SuppressionReason>;

/**
 * The row as stored. The address's hash is the key itself (suppressionKey),
 * read back from it; entries older than the index lack its attributes.
 */
export const Suppression = z
  .looseObject({
    pk: z.string().startsWith('SUPPRESSED#'),
    reason: SuppressionReason.optional(),
    createdAt: z.string().optional(),
  })
  .transform((row) => ({ ...row, hash: row.pk.slice('SUPPRESSED#'.length) }));
export type Suppression = z.infer<typeof Suppression>;

export const fromItem = (item: Item): Suppression => Suppression.parse(item);

export const toItem = (hash: string, reason: SuppressionReason, createdAt: string): Item => ({
  ...suppressionKey(hash),
  ...suppressionIndex(hash),
  reason,
  createdAt,
});

/** An entry as the suppression index lists it: the hash is its sort key there (listedHash). */
export const IndexedSuppression = z.object({ hash: z.string() });
export const indexedFromItem = (item: Item) => IndexedSuppression.parse({ hash: listedHash(item) });
