/** Install-wide setting items: one shape each, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';

/** An installation secret (settingKey): sealed, base64 inside. */
export const SealedSetting = z.looseObject({ sealed: z.string() });
export type SealedSetting = z.infer<typeof SealedSetting>;
export const sealedSettingFromItem = (item: Item): SealedSetting => SealedSetting.parse(item);
