import type { Key } from '../ports/store.ts';

/** Install-wide settings: one item each under a fixed partition. */
export const settingKey = (name: string): Key => ({ pk: 'SETTING', sk: name });
