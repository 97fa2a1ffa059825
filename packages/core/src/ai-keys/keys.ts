import type { Key } from '../ports/store.ts';

/** The customer's own AI provider keys, one item per provider. */
export const aiKeyKey = (provider: string): Key => ({ pk: 'AIKEY', sk: provider });
