/**
 * The console's one way to the engine: the typed client over the page's own
 * origin, and the session's token. The token lives in sessionStorage, so it
 * lasts as long as the tab and no longer; signing out removes it.
 */
import { createOutboundClient } from '@outbound/client/index';

const KEY = 'outbound.token';

export const session = {
  token: (): string | undefined => sessionStorage.getItem(KEY) ?? undefined,
  set: (token: string) => sessionStorage.setItem(KEY, token),
  clear: () => sessionStorage.removeItem(KEY),
};

export const api = createOutboundClient({ baseUrl: location.origin, token: session.token });

/** The engine's sentence from an `{ error }` body, or a plain one when there is none. */
export function errorText(error: unknown, fallback = 'The engine did not answer as expected. Try again.'): string {
  const text = (error as { error?: unknown } | undefined)?.error;
  return typeof text === 'string' && text ? text : fallback;
}

/** A new key for each send click: a double click or a retry sends one email (docs/api.md, Conversations). */
export const idempotencyKey = () => crypto.randomUUID();

/** A date as the reader's own clock and calendar show it. */
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
