import { aiWriter } from '@outbound/mail/ai';
import type { Kit } from '../deps.ts';

/** Wait per AI attempt (two attempts): a send fits the sender's AI budget (sending/sender.ts: 35 s). */
export const AI_TIMEOUT_MS = 15_000;

/** The OpenAI and Anthropic SDKs: the sender writes copy with them, the mailbox poller asks them about replies the rules could not read. */
export const aiKit: Kit = {
  name: 'ai',
  make: ({ openaiBaseUrl, anthropicBaseUrl }) => ({
    ai: aiWriter({ openaiBaseUrl, anthropicBaseUrl, timeoutMs: AI_TIMEOUT_MS, maxRetries: 1 }),
  }),
};
