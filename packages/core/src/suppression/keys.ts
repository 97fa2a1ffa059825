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
export const allSuppressions = (): IndexQuery => ({ index: 'gsi3', pk: SUPPRESSIONS });
