import type { IndexQuery, Key } from '../ports/store.ts';

export const domainKey = (id: string): Key => ({ pk: `DOMAIN#${id}`, sk: 'DOMAIN' });
/** All domains: gsi1 `DOMAINS`, sorted by id (ULIDs sort by creation). */
export const domainCollection = (id: string) => ({ gsi1pk: 'DOMAINS', gsi1sk: id });
export const DOMAINS = 'DOMAINS';
/** One domain per name: a conditional put on this item; also the lookup by name (the check route). */
export const domainNameKey = (name: string): Key => ({ pk: `DOMAINNAME#${name}`, sk: 'UNIQUE' });

/** Access pattern: every domain (the hourly check, lists). */
export const allDomains = (): IndexQuery => ({ index: 'gsi1', pk: DOMAINS });
