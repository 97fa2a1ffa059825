import type { IndexQuery, Key } from '../ports/store.ts';

/** Keyed by a salted hash of the address, so an erased address stays suppressed without being stored. */
export const suppressionKey = (hash: string): Key => ({ pk: `SUPPRESSED#${hash}`, sk: 'SUPPRESSED' });

/**
 * Every suppression, in one sparse index partition, so a bulk import reads
 * the list once instead of looking up each address. Complete only on
 * installations whose suppression salt was made with it (the install record's
 * `suppressionsIndexed`): older entries lack the index attributes.
 */
export const SUPPRESSIONS = 'SUPPRESSIONS';
export const suppressionIndex = (hash: string) => ({ gsi3pk: SUPPRESSIONS, gsi3sk: hash });
/** The hash of an entry as the suppression index lists it (its sort key there); a string when the item came from that index. */
export const listedHash = (item: Record<string, unknown>): unknown => item.gsi3sk;
export const allSuppressions = (): IndexQuery => ({ index: 'gsi3', pk: SUPPRESSIONS });
