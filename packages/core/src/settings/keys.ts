import type { Key } from '../ports/store.ts';

/** Install-wide settings: one item each under a fixed partition. */
export const settingKey = (name: string): Key => ({ pk: 'SETTING', sk: name });

/**
 * The record of which installation secrets were ever made, in a partition of
 * its own (a restore that loses the secrets' items may keep it): a secret
 * listed here and missing from the table was lost, and is never made again.
 */
export const installRecordKey: Key = { pk: 'INSTALL', sk: 'SECRETS' };
