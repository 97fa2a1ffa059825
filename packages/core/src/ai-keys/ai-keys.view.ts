/** GET /v1/ai-keys as the API shows it (list, in ai-keys/index.ts): which providers have a key, never the key. */
import * as z from 'zod';
import { AiKeyProvider } from './index.ts';

export const AiKeyStatusView = z.object({ provider: AiKeyProvider, configured: z.boolean() });
export type AiKeyStatusView = z.infer<typeof AiKeyStatusView>;
