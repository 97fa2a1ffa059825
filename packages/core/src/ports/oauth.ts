/**
 * OAuth 2.0 with the mail suites (adapter: packages/mail/src/oauth-client.ts
 * over fetch). Core builds the authorization URL, keeps the state and the
 * tokens, and decides what a refusal means; the adapter only speaks HTTP.
 */
export type OAuthProviderName = 'google' | 'microsoft';

/** One provider's app, from the installation's configuration (client secret included: never logged). */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  /**
   * The provider's own mail servers, which OAuth mailboxes always use (their
   * bearer tokens go nowhere else); absent means the provider's public ones.
   * Tests point them at local servers.
   */
  servers?: MailServers;
}

export interface MailServers {
  smtp: { host: string; port: number };
  imap: { host: string; port: number };
}

export interface TokenSet {
  accessToken: string;
  /** Wall-clock epoch ms after which the access token is no longer good. */
  expiresAt: number;
  /** Present on the first exchange, and when the provider rotates it. */
  refreshToken?: string;
  /** The OpenID Connect ID token, when the provider sent one (a fallback for the profile). */
  idToken?: string;
}

/** The provider refused (invalid_grant, invalid_client, a 4xx): the grant is revoked or the request was wrong. Retrying will not help. */
export class OAuthRefusedError extends Error {
  constructor(
    readonly error: string,
    message = `The provider refused: ${error}.`,
  ) {
    super(message);
    this.name = 'OAuthRefusedError';
  }
}

export interface OAuthClient {
  /** The authorization-code grant with PKCE (RFC 6749 §4.1.3, RFC 7636 §4.5). */
  exchangeCode(app: OAuthApp, grant: { code: string; redirectUri: string; codeVerifier: string }): Promise<TokenSet>;
  /** The refresh grant (RFC 6749 §6). Throws OAuthRefusedError when the provider refuses it. */
  refresh(app: OAuthApp, refreshToken: string): Promise<TokenSet>;
  /** The signed-in user's profile (Google's userinfo, Microsoft Graph's /me), as the provider wrote it. */
  profile(app: OAuthApp, accessToken: string): Promise<Record<string, unknown>>;
}
