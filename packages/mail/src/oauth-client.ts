/**
 * The OAuthClient port over fetch: the token endpoint (RFC 6749 §4.1.3 and
 * §6, with the PKCE verifier of RFC 7636 §4.5) and the profile endpoint.
 * Only HTTP lives here; what a refusal means is core's business.
 */
import { OAuthRefusedError, type OAuthApp, type OAuthClient, type TokenSet } from '@outbound/core/ports/oauth';

const TIMEOUT_MS = 15_000;

export function oauthClient(opts: { now?: () => number } = {}): OAuthClient {
  const now = opts.now ?? Date.now;

  async function token(app: OAuthApp, grant: Record<string, string>): Promise<TokenSet> {
    const body = new URLSearchParams({ ...grant, client_id: app.clientId, client_secret: app.clientSecret });
    const res = await fetch(app.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: judged by the status below
    }
    // RFC 6749 §5.2: a 400 or 401 with an error code is a refusal; a 5xx is the provider being down.
    if (res.status >= 400 && res.status < 500)
      throw new OAuthRefusedError(typeof json.error === 'string' ? json.error : `http ${res.status}`);
    if (!res.ok) throw new Error(`token endpoint answered ${res.status}`);
    if (typeof json.access_token !== 'string' || !json.access_token) throw new Error('token endpoint answered without an access_token');
    const expiresIn = Number(json.expires_in ?? 3600);
    return {
      accessToken: json.access_token,
      expiresAt: now() + (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600) * 1000,
      ...(typeof json.refresh_token === 'string' && json.refresh_token ? { refreshToken: json.refresh_token } : {}),
      ...(typeof json.id_token === 'string' ? { idToken: json.id_token } : {}),
    };
  }

  return {
    exchangeCode: (app, g) =>
      token(app, { grant_type: 'authorization_code', code: g.code, redirect_uri: g.redirectUri, code_verifier: g.codeVerifier }),
    refresh: (app, refreshToken) => token(app, { grant_type: 'refresh_token', refresh_token: refreshToken }),
    async profile(app, accessToken) {
      const res = await fetch(app.userinfoUrl, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (!res.ok) throw new Error(`userinfo answered ${res.status}`);
      return (await res.json()) as Record<string, unknown>;
    },
  };
}
