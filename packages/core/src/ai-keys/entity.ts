/** A stored AI provider key: one shape, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';

/** The key itself is sealed (AES-256-GCM, bound to its provider) and never returned. */
export const AiKey = z.looseObject({
  provider: z.string(),
  sealed: z.string(),
  updatedAt: z.string().optional(),
});
export type AiKey = z.infer<typeof AiKey>;

export const fromItem = (item: Item): AiKey => AiKey.parse(item);
