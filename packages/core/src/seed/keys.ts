import type { IndexQuery, Key } from '../ports/store.ts';

export const seedKey = (id: string): Key => ({ pk: `SEED#${id}`, sk: 'SEED' });
/** gsi1: every seed inbox, oldest first (ULIDs sort by creation). */
export const SEEDS = 'SEEDS';
export const seedCollection = (id: string) => ({ gsi1pk: SEEDS, gsi1sk: id });
/** One seed inbox per address: a conditional put on this item answers the 409. */
export const seedEmailKey = (email: string): Key => ({ pk: `SEEDEMAIL#${email}`, sk: 'UNIQUE' });

/** Access pattern: every seed inbox. */
export const allSeeds = (): IndexQuery => ({ index: 'gsi1', pk: SEEDS });
