/**
 * Access tokens for XOAUTH2 (SMTP sends, IMAP reads): refreshed with the
 * mailbox's sealed refresh token and kept per process until shortly before
 * they expire, so a send does not pay a refresh (nor a KMS decrypt) each time.
 */
import type { Deps } from '../deps.ts';
import { EngineError } from '../errors.ts';
import { setMailboxError } from '../mailbox/error-state.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { OAuthRefusedError, type OAuthProviderName } from '../ports/oauth.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { openSecret, sealSecret } from '../secrets/index.ts';
import { PROVIDERS, providerOf } from './providers.ts';

export const refreshTokenContext = (mailboxId: string) => ({ purpose: 'mailbox-oauth-refresh', mailboxId });

/** A token this close to its expiry is refreshed first: a send or a read may take a while. */
const EARLY_MS = 5 * 60_000;

interface Cached {
  accessToken: string;
  expiresAt: number;
  /** The sealed refresh token it came from: a reconnect (a new one) makes it stale at once. */
  sealed: string;
}

const caches = new WeakMap<object, Map<string, Promise<Cached>>>();
const cacheOf = (deps: Pick<Deps, 'oauth'>) => {
  let cache = caches.get(deps.oauth);
  if (!cache) caches.set(deps.oauth, (cache = new Map()));
  return cache;
};

export function forgetAccessToken(deps: Pick<Deps, 'oauth'>, mailboxId: string): void {
  cacheOf(deps).delete(mailboxId);
}

/** The mailbox cannot be signed in to with what it has: it needs its owner (status ERROR names why). */
export class MailboxAccessError extends EngineError {
  constructor(message: string) {
    super('UNAVAILABLE', message);
  }
}

/**
 * A fresh access token for an OAuth mailbox. A refusal of the refresh marks
 * the mailbox ERROR with a sentence saying how to fix it (connect it again),
 * which stops its sends, and throws MailboxAccessError; a provider that cannot
 * be reached throws as it is, to be tried again later.
 */
export async function accessToken(
  deps: Pick<Deps, 'store' | 'keys' | 'oauth' | 'config' | 'wallClock' | 'clock' | 'log'>,
  mailbox: Mailbox,
): Promise<string> {
  const id = mailbox.id;
  const sealed = mailbox.sealedRefreshToken ?? '';
  const provider = providerOf(mailbox.provider);
  if (!sealed || !provider || mailbox.auth !== 'oauth')
    throw new MailboxAccessError('The mailbox is not connected: connect it with its provider first.');
  const cache = cacheOf(deps);
  const hit = cache.get(id);
  if (hit) {
    const cached = await hit.catch(() => undefined);
    if (cached && cached.sealed === sealed && cached.expiresAt - EARLY_MS > deps.wallClock.now()) return cached.accessToken;
    if (cache.get(id) === hit) cache.delete(id);
  }
  let pending = cache.get(id);
  if (!pending) {
    pending = refresh(deps, mailbox, provider, sealed);
    cache.set(id, pending);
    pending.catch(() => {
      if (cache.get(id) === pending) cache.delete(id);
    });
  }
  return (await pending).accessToken;
}

async function refresh(
  deps: Pick<Deps, 'store' | 'keys' | 'oauth' | 'config' | 'wallClock' | 'clock' | 'log'>,
  mailbox: Pick<Mailbox, 'id' | 'email'>,
  provider: OAuthProviderName,
  sealed: string,
): Promise<Cached> {
  const id = mailbox.id;
  const rules = PROVIDERS[provider];
  const app = deps.config.oauth?.[provider];
  if (!app)
    throw new MailboxAccessError(
      `${rules.label} sign-in is not set up on this installation: set ${rules.envPrefix}_CLIENT_ID and ${rules.envPrefix}_CLIENT_SECRET.`,
    );
  const refreshToken = await openSecret(deps.keys, sealed, refreshTokenContext(id));
  try {
    const tokens = await deps.oauth.refresh(app, refreshToken);
    let current = sealed;
    if (tokens.refreshToken && tokens.refreshToken !== refreshToken) {
      // The provider rotated it (Microsoft may): the old one stops working soon, so the new one is kept at once.
      current = await sealSecret(deps.keys, tokens.refreshToken, refreshTokenContext(id));
      await deps.store
        .update(mailboxKey(id), { set: { sealedRefreshToken: current }, if: { attr: 'sealedRefreshToken', op: '=', value: sealed } })
        .catch((err) => {
          deps.log.warn('rotated refresh token not stored: the mailbox changed meanwhile', { mailboxId: id, err });
        });
    }
    return { accessToken: tokens.accessToken, expiresAt: tokens.expiresAt, sealed: current };
  } catch (err) {
    if (!(err instanceof OAuthRefusedError)) throw err;
    const sentence = `${rules.label} refused to renew the mailbox's access (it was revoked or expired): connect the mailbox again.`;
    deps.log.warn('oauth refresh refused; mailbox set to ERROR', { mailboxId: id, provider, error: err.error });
    // Conditional on the same grant: a reconnect that landed meanwhile is not undone.
    await setMailboxError(deps, mailbox, sentence, { attr: 'sealedRefreshToken', op: '=', value: sealed }).catch(() => undefined);
    throw new MailboxAccessError(sentence);
  }
}
