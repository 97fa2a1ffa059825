import type { Key } from '../ports/store.ts';

/** One counter per bucket, client address and one-minute window. */
export const rateWindowKey = (bucket: string, client: string, window: number): Key => ({
  pk: `RATE#${bucket}#${client}#${window}`,
  sk: 'RATE',
});
