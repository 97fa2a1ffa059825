/** An authorization in progress (oauthStateKey): one shape, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { OAuthProvider } from './oauth.schema.ts';

export const OAuthState = z.looseObject({
  /** The PKCE verifier: it stays here, so only the engine that started the flow can finish it. */
  verifier: z.string(),
  mailboxId: z.string(),
  provider: OAuthProvider,
  /** Seconds since the epoch: the table's TTL removes an abandoned flow. */
  expiresAt: z.number().optional(),
});
export type OAuthState = z.infer<typeof OAuthState>;

export const stateFromItem = (item: Item): OAuthState => OAuthState.parse(item);
