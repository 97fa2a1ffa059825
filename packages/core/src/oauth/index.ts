/**
 * Connecting a GOOGLE or MICROSOFT mailbox with OAuth 2.0 (docs/oauth.md):
 * authorize sends the browser to the provider with PKCE (RFC 7636, S256) and
 * a signed state that names the mailbox and expires in 10 minutes of wall
 * time; the callback checks the state, exchanges the code, reads the
 * profile, and keeps the refresh token sealed like every other secret.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Deps } from '../deps.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { OAuthRefusedError, type OAuthApp, type OAuthProviderName, type TokenSet } from '../ports/oauth.ts';
import * as mailboxes from '../mailbox/entity.ts';
import { sealSecret } from '../secrets/index.ts';
import { signingKey } from '../settings/index.ts';
import { parse } from '../validate.ts';
import { oauthStateKey } from './keys.ts';
import { stateFromItem } from './entity.ts';
import { AuthorizeQuery, CallbackQuery, OAuthProvider, StateClaims } from './oauth.schema.ts';
import { oauthServers, PROVIDERS } from './providers.ts';
import { refreshTokenContext, forgetAccessToken } from './tokens.ts';

/** An authorization must come back within this long (wall clock: TIME_SCALE never applies to tokens). */
export const STATE_TTL_MS = 10 * 60_000;
const AUDIENCE = 'oauth-state';

type D = Pick<Deps, 'store' | 'keys' | 'wallClock' | 'config' | 'oauth' | 'log'>;

/** The state is signed with a key of its own, derived from the installation's signing secret: a state is never a bearer token. */
async function stateKey(deps: Pick<Deps, 'store' | 'keys'>): Promise<Uint8Array> {
  return createHmac('sha256', await signingKey(deps))
    .update('oauth-state')
    .digest();
}

function providerName(value: string): OAuthProviderName {
  const parsed = OAuthProvider.safeParse(value);
  if (!parsed.success) throw new NotFoundError(`There is no OAuth provider ${value.slice(0, 40)}: use google or microsoft.`);
  return parsed.data;
}

function appFor(deps: Pick<Deps, 'config'>, provider: OAuthProviderName): OAuthApp {
  const app = deps.config.oauth?.[provider];
  const rules = PROVIDERS[provider];
  if (!app) {
    throw new ValidationError(
      `${rules.label} sign-in is not set up on this installation: set ${rules.envPrefix}_CLIENT_ID and ${rules.envPrefix}_CLIENT_SECRET.`,
    );
  }
  return app;
}

export const redirectUri = (deps: Pick<Deps, 'config'>, provider: OAuthProviderName) =>
  `${deps.config.publicBaseUrl.replace(/\/+$/, '')}/v1/oauth/${provider}/callback`;

/** The provider's consent URL for a mailbox created without a password (GET /v1/oauth/{provider}/authorize answers 302 to it). */
export async function authorize(deps: D, providerParam: string, query: unknown): Promise<string> {
  const provider = providerName(providerParam);
  const { mailboxId } = parse(AuthorizeQuery, query);
  const row = await deps.store.get(mailboxKey(mailboxId));
  if (!row) throw new NotFoundError(`There is no mailbox ${mailboxId}.`);
  const mailbox = mailboxes.fromItem(row);
  const rules = PROVIDERS[provider];
  if (mailbox.auth === 'password')
    throw new ValidationError('mailboxId: this mailbox was created with a password; OAuth is for mailboxes created without authPassword.');
  if (mailbox.provider !== rules.mailboxProvider) {
    throw new ValidationError(
      `mailboxId: this is a ${mailbox.provider} mailbox; ${rules.label} connects ${rules.mailboxProvider} mailboxes only.`,
    );
  }
  // The route is public: anyone with a mailbox's id may start a flow, so a mailbox that works is not offered for a new
  // connection. One never connected, or in ERROR (a revoked grant), may be connected again.
  if (connectedAndWorking(mailbox))
    throw new ConflictError(
      'This mailbox is connected and sending: it needs no new connection. If its access was revoked it shows ERROR, and can be connected again then.',
    );
  const app = appFor(deps, provider);
  if (!deps.config.publicBaseUrl)
    throw new ValidationError('This installation has no PUBLIC_BASE_URL, so the provider has no address to send you back to.');

  const nonce = randomBytes(16).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const now = deps.wallClock.now();
  // The verifier stays here: only the engine that started the flow can finish it (RFC 7636 §1).
  await deps.store.put({ ...oauthStateKey(nonce), verifier, mailboxId, provider, expiresAt: Math.ceil((now + STATE_TTL_MS) / 1000) + 60 });
  const state = await new SignJWT({ mid: mailboxId, prv: provider, nonce })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(AUDIENCE)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor((now + STATE_TTL_MS) / 1000))
    .sign(await stateKey(deps));
  const url = new URL(app.authUrl);
  const params = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri(deps, provider),
    scope: rules.scope,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    // No login_hint: the redirect is answered to anyone who knows the mailbox's id, and the hint would tell them its address.
    ...rules.extraParams,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/** ACTIVE or WARMING with a sealed refresh token: the connection is sending, nothing to reconnect. */
const connectedAndWorking = (mailbox: mailboxes.Mailbox) => Boolean(mailbox.sealedRefreshToken) && mailboxes.canSend(mailbox);

/** Why a callback was refused, in a sentence for the page the browser shows. */
const refused = (sentence: string) => new ValidationError(sentence);

/**
 * The provider's redirect back. Everything is checked before anything
 * changes: the state's signature and expiry, the stored verifier (used once),
 * the mailbox, the exchange, and that the account signed in is the
 * mailbox's own address. Returns the connected mailbox's address.
 */
export async function callback(deps: D, providerParam: string, query: unknown): Promise<{ email: string }> {
  const provider = providerName(providerParam);
  const q = CallbackQuery.safeParse(query);
  if (!q.success) throw refused('The link back from the sign-in is not complete. Start the connection again.');
  if (q.data.error)
    throw refused(
      q.data.error === 'access_denied'
        ? 'The sign-in was cancelled, so the mailbox was not connected.'
        : 'The provider did not complete the sign-in. Start the connection again.',
    );
  if (!q.data.code || !q.data.state) throw refused('The link back from the sign-in is not complete. Start the connection again.');

  let claims: { mid: string; prv: OAuthProviderName; nonce: string };
  try {
    const { payload } = await jwtVerify(q.data.state, await stateKey(deps), {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      currentDate: new Date(deps.wallClock.now()),
    });
    claims = StateClaims.parse(payload);
  } catch {
    throw refused('This sign-in link is not valid or has expired (it lasts 10 minutes). Start the connection again.');
  }
  if (claims.prv !== provider) throw refused('This sign-in link is not valid. Start the connection again.');

  const row = await deps.store.get(mailboxKey(claims.mid));
  const mailbox = row && mailboxes.fromItem(row);
  if (!mailbox || mailbox.auth === 'password') throw refused('The mailbox this sign-in was for no longer exists.');
  // Used once: the delete answers the stored verifier only to the first callback.
  const deleted = await deps.store.delete(oauthStateKey(claims.nonce));
  const stored = deleted && stateFromItem(deleted);
  if (!stored || stored.mailboxId !== claims.mid) throw refused('This sign-in link was already used. Start the connection again.');

  const app = appFor(deps, provider);
  const rules = PROVIDERS[provider];
  let tokens: TokenSet;
  try {
    tokens = await deps.oauth.exchangeCode(app, {
      code: q.data.code,
      redirectUri: redirectUri(deps, provider),
      codeVerifier: stored.verifier,
    });
  } catch (err) {
    deps.log.warn('oauth code exchange failed', { provider, mailboxId: claims.mid, err });
    throw refused(
      err instanceof OAuthRefusedError
        ? `${rules.label} did not accept the sign-in. Start the connection again.`
        : `${rules.label} could not be reached to finish the sign-in. Try again in a moment.`,
    );
  }
  if (!tokens.refreshToken)
    throw refused(`${rules.label} did not grant lasting access to the mailbox. Start the connection again and accept every permission.`);

  const profile = await readProfile(deps, app, tokens, provider);
  const signedInAs = verifiedEmail(provider, profile);
  // Fails closed: without an address to compare, anyone's consent would connect the mailbox.
  if (!signedInAs)
    throw refused(`${rules.label} did not say which account signed in, so the mailbox was not connected. Start the connection again.`);
  if (signedInAs !== mailbox.email.toLowerCase()) {
    throw refused(`You signed in as ${signedInAs}, but this mailbox is ${mailbox.email}. Sign in with the mailbox's own account.`);
  }
  await connect(deps, mailbox, provider, tokens.refreshToken, profileName(profile, rules.nameField));
  return { email: mailbox.email };
}

/** What the provider said of the account: its userinfo (Google's userinfo, Graph's /me), or the claims of its ID token. */
export type Profile = { from: 'userinfo' | 'idToken'; claims: Record<string, unknown> };

/** The profile from the userinfo URL, else the ID token's claims (Microsoft's mail scopes do not always reach Graph). */
async function readProfile(deps: D, app: OAuthApp, tokens: TokenSet, provider: OAuthProviderName): Promise<Profile> {
  try {
    return { from: 'userinfo', claims: await deps.oauth.profile(app, tokens.accessToken) };
  } catch (err) {
    deps.log.warn('oauth profile could not be read; using the ID token', { provider, err });
    return { from: 'idToken', claims: idTokenClaims(tokens.idToken) };
  }
}

/** The ID token came straight from the token endpoint over TLS (OpenID Connect Core §3.1.3.7): its claims are read, not re-verified. */
function idTokenClaims(idToken: string | undefined): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(String(idToken).split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const address = (v: unknown) => (typeof v === 'string' && /^[^@\s]+@[^@\s]+$/.test(v.trim()) ? v.trim().toLowerCase() : undefined);
const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);
const isTrue = (v: unknown) => v === true || v === 'true' || v === 1 || v === '1';

/** Microsoft's tenant of personal accounts (outlook.com, hotmail.com): Microsoft itself verified their address. */
export const MICROSOFT_CONSUMER_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';

/**
 * The address the provider vouches for, or undefined: a profile's address
 * that its provider did not verify proves nothing, since the callback
 * connects a mailbox to whichever account matches its address.
 * - Google: `email` only with `email_verified` (OpenID Connect Core §5.1).
 * - Microsoft ("nOAuth"): the `mail` attribute and the `email` claim are
 *   whatever a tenant's administrator typed, any domain. Graph's `mail`
 *   counts only when its domain is that of the `userPrincipalName`, whose
 *   domain the tenant must have verified, else the user principal name
 *   itself (never a guest's `#EXT#` name); an ID token's `email` only from
 *   the consumer tenant or with `xms_edov` (the domain's owner verified it),
 *   as Microsoft's guidance on the email claim says.
 */
export function verifiedEmail(provider: OAuthProviderName, profile: Profile): string | undefined {
  const p = profile.claims;
  if (provider === 'google') return isTrue(p.email_verified) || isTrue(p.verified_email) ? address(p.email) : undefined;
  if (profile.from === 'userinfo') {
    const upn = address(p.userPrincipalName);
    if (!upn || upn.includes('#ext#')) return undefined;
    const mail = address(p.mail);
    return mail && domainOf(mail) === domainOf(upn) ? mail : upn;
  }
  const email = address(p.email);
  return email && (p.tid === MICROSOFT_CONSUMER_TENANT || isTrue(p.xms_edov)) ? email : undefined;
}

const profileName = ({ claims: p }: Profile, field: string) => {
  const value = p[field] ?? p.name;
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 80) : undefined;
};

/** The mailbox becomes sendable: the refresh token sealed, the provider's own servers set (whatever the row held). */
async function connect(
  deps: D,
  mailbox: mailboxes.Mailbox,
  provider: OAuthProviderName,
  refreshToken: string,
  senderName: string | undefined,
) {
  const id = mailbox.id;
  const servers = oauthServers(deps.config, provider);
  const now = new Date(deps.wallClock.now()).toISOString();
  await deps.store.update(mailboxKey(id), {
    set: {
      auth: 'oauth',
      status: 'ACTIVE',
      sealedRefreshToken: await sealSecret(deps.keys, refreshToken, refreshTokenContext(id)),
      smtpHost: servers.smtp.host,
      smtpPort: servers.smtp.port,
      imapHost: servers.imap.host,
      imapPort: servers.imap.port,
      // The first connection starts the inbox reading: nothing that arrived before it is classified.
      connectedAt: mailbox.connectedAt ?? now,
      ...(senderName ? { senderName } : {}),
      updatedAt: now,
    },
    remove: ['lastError'],
    if: { itemExists: true },
  });
  forgetAccessToken(deps, id);
}
