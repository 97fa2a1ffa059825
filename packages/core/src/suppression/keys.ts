import type { Key } from '../ports/store.ts';

/** Keyed by a salted hash of the address, so an erased address stays suppressed without being stored. */
export const suppressionKey = (hash: string): Key => ({ pk: `SUPPRESSED#${hash}`, sk: 'SUPPRESSED' });
