import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { openSecretCached, sealSecret } from '../secrets/index.ts';
import { parse } from '../validate.ts';
import { aiKeyKey } from './keys.ts';
import { fromItem } from './entity.ts';
import type { AiKeyStatusView } from './ai-keys.view.ts';

/** Path names of the two providers (docs/api.md, AI keys); campaigns name them in upper case. */
export const AiKeyProvider = z.enum(['openai', 'anthropic'], { error: 'provider must be openai or anthropic' });
export type AiKeyProvider = z.infer<typeof AiKeyProvider>;

export const ApiKey = z.strictObject({
  apiKey: z.string({ error: 'must be a string' }).trim().min(8, { error: 'must be at least 8 characters' }).max(512),
});

/** Stored item field: the key sealed with AES-256-GCM, bound to its provider. Never returned. */
const sealContext = (provider: AiKeyProvider) => ({ purpose: 'ai-key', provider });

export async function put(deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>, provider: unknown, body: unknown): Promise<void> {
  const p = parse(AiKeyProvider, provider);
  const { apiKey } = parse(ApiKey, body);
  await deps.store.put({
    ...aiKeyKey(p),
    provider: p,
    sealed: await sealSecret(deps.keys, apiKey, sealContext(p)),
    updatedAt: new Date(deps.wallClock.now()).toISOString(),
  });
}

export async function list(deps: Pick<Deps, 'store'>): Promise<AiKeyStatusView[]> {
  const page = await deps.store.query({ pk: aiKeyKey('').pk });
  const configured = new Set(page.items.map((i) => i.sk));
  return AiKeyProvider.options.map((provider) => ({ provider, configured: configured.has(provider) }));
}

/** Idempotent: removing a key that is not stored is not an error. */
export async function remove(deps: Pick<Deps, 'store'>, provider: unknown): Promise<void> {
  await deps.store.delete(aiKeyKey(parse(AiKeyProvider, provider)));
}

/** The plaintext key, for the send path's AI call only; undefined when none is stored. */
export async function reveal(deps: Pick<Deps, 'store' | 'keys'>, provider: AiKeyProvider): Promise<string | undefined> {
  const item = await deps.store.get(aiKeyKey(provider));
  return item ? openSecretCached(deps.keys, fromItem(item).sealed, sealContext(provider)) : undefined;
}
