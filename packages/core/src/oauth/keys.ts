import type { Key } from '../ports/store.ts';

/** One authorization in progress: its PKCE verifier, used once by the callback; the TTL removes what was abandoned. */
export const oauthStateKey = (nonce: string): Key => ({ pk: `OAUTHSTATE#${nonce}`, sk: 'STATE' });
