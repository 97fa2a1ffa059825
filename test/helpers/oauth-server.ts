/**
 * A small OAuth 2.0 authorization server on 127.0.0.1 for tests, playing
 * Google or Microsoft: authorize (consents at once as the user the test
 * names), token (authorization code with the PKCE check of RFC 7636 §4.6,
 * and refresh), userinfo in the provider's shape, and RFC 7662 introspection
 * (which Dovecot's oauth2 passdb asks). Written for the tests: it checks what
 * a real provider checks on the engine's side of the exchange. node:http only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthServerOptions {
  profile: 'google' | 'microsoft';
  /**
   * Accounts that can sign in, with their display name (omitted from the profile when not given);
   * `noEmail`: the profile and the ID token name no address (an account the engine cannot confirm).
   */
  users: Record<string, { name?: string; noEmail?: boolean }>;
  /** Access token lifetime in seconds (default 3600). */
  expiresIn?: number;
  /** Hand out a new refresh token with every refresh (Microsoft may). The old one keeps working until revoked. */
  rotateRefreshTokens?: boolean;
}

export interface TestOAuthServer {
  profile: 'google' | 'microsoft';
  /** http://127.0.0.1:PORT */
  url: string;
  /** GET: the authorization endpoint. */
  authUrl: string;
  /** POST, form-encoded: the token endpoint. */
  tokenUrl: string;
  /** GET with a bearer token: Google's userinfo or Microsoft Graph's /me. */
  userinfoUrl: string;
  /** POST, form `token=`: RFC 7662 introspection. */
  introspectUrl: string;
  /** The one client this server knows (random per server). */
  clientId: string;
  clientSecret: string;
  /** The account every following authorize consents as (must be one of `users`). */
  signInAs(email: string): void;
  /** The query of every authorize request, accepted or not, in order. */
  authorizeRequests: Record<string, string>[];
  /** Token requests by grant type (`authorization_code`, `refresh_token`, ...), successful or not. */
  tokenRequests: Record<string, number>;
  /** Who a still-valid access token belongs to. */
  accessTokenUser(token: string): string | undefined;
  /** Every refresh token handed out so far (revoked ones too). */
  issuedRefreshTokens(): string[];
  /** This refresh token stops working (`invalid_grant`); false if the server never issued it. */
  revoke(refreshToken: string): boolean;
  /** Every refresh token issued so far stops working (the grant was revoked). */
  revokeAll(): void;
  /** Every access token issued so far stops working (userinfo 401, introspection inactive); refresh still works. */
  expireAccessTokens(): void;
  stop(): Promise<void>;
}

interface Code {
  grant: number;
  user: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  expiresAt: number;
  used: boolean;
}

interface Grant {
  user: string;
  scope: string;
}

/** How long a code can be redeemed (Google's and Microsoft's are minutes; RFC 6749 §4.1.2 says at most 10). */
const CODE_TTL_MS = 5 * 60_000;
/** RFC 7636 §4.1 and §4.2: 43 to 128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

const b64url = (buf: Buffer) => buf.toString('base64url');
const randomToken = () => b64url(randomBytes(24));
const sha256 = (text: string) => createHash('sha256').update(text).digest();

export async function startOAuthServer(opts: OAuthServerOptions): Promise<TestOAuthServer> {
  const clientId = `client-${randomToken().slice(0, 8)}`;
  const clientSecret = `secret-${randomToken()}`;
  const lifetime = opts.expiresIn ?? 3600;
  const codes = new Map<string, Code>();
  const grants: Grant[] = [];
  const access = new Map<string, { grant: number; expiresAt: number }>();
  const refresh = new Map<string, { grant: number; revoked: boolean }>();
  const authorizeRequests: Record<string, string>[] = [];
  const tokenRequests: Record<string, number> = {};
  let signedIn: string | undefined;
  let origin = '';

  const issueAccess = (grant: number) => {
    const at = randomToken();
    access.set(at, { grant, expiresAt: Date.now() + lifetime * 1000 });
    return at;
  };
  const issueRefresh = (grant: number) => {
    const rt = randomToken();
    refresh.set(rt, { grant, revoked: false });
    return rt;
  };
  const accessGrant = (t: string | undefined) => {
    const entry = t === undefined ? undefined : access.get(t);
    return entry && entry.expiresAt > Date.now() ? { ...grants[entry.grant]!, expiresAt: entry.expiresAt } : undefined;
  };
  /** Every token of a grant stops working (a code redeemed twice, RFC 6749 §4.1.2). */
  const revokeGrant = (grant: number) => {
    for (const entry of access.values()) if (entry.grant === grant) entry.expiresAt = 0;
    for (const entry of refresh.values()) if (entry.grant === grant) entry.revoked = true;
  };
  const subject = (user: string) => {
    const hash = sha256(user);
    // Google's sub is a long decimal string; Graph's id a GUID.
    return opts.profile === 'google'
      ? BigInt(`0x${hash.subarray(0, 8).toString('hex')}`)
          .toString()
          .padStart(21, '1')
          .slice(0, 21)
      : hash
          .toString('hex')
          .slice(0, 32)
          .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
  };
  const idToken = (user: string, scope: string) => {
    const now = Math.floor(Date.now() / 1000);
    const name = opts.users[user]?.name;
    const email = opts.users[user]?.noEmail ? {} : { email: user, email_verified: true };
    const claims = {
      iss: origin,
      aud: clientId,
      sub: subject(user),
      ...email,
      ...(name ? { name } : {}),
      iat: now,
      exp: now + lifetime,
      scope,
    };
    // Unsigned (alg none): a test server's id_token is read, never trusted.
    return [{ alg: 'none', typ: 'JWT' }, claims].map((p) => b64url(Buffer.from(JSON.stringify(p)))).join('.') + '.';
  };

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      ...headers,
    });
    res.end(JSON.stringify(body));
  };
  const text = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(body);
  };
  const readForm = async (req: IncomingMessage): Promise<Record<string, string> | undefined> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') return undefined;
    return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
  };
  /**
   * Client authentication (RFC 6749 §2.3.1): HTTP Basic (client_secret_basic, each half form-urlencoded)
   * or client_id and client_secret in the body (client_secret_post). Returns the client id on success.
   */
  const authenticateClient = (req: IncomingMessage, form: Record<string, string>): { ok: boolean; basic: boolean } => {
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (basic) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const unform = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch {
          return s;
        }
      };
      const id = colon === -1 ? '' : unform(decoded.slice(0, colon));
      const secret = colon === -1 ? '' : unform(decoded.slice(colon + 1));
      // A client_id in the body as well must name the same client.
      return { ok: id === clientId && secret === clientSecret && (form.client_id === undefined || form.client_id === id), basic: true };
    }
    return { ok: form.client_id === clientId && form.client_secret === clientSecret, basic: false };
  };

  function authorize(url: URL, res: ServerResponse) {
    const q = Object.fromEntries(url.searchParams);
    authorizeRequests.push(q);
    const required = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'];
    const missing = required.filter((k) => !q[k]);
    if (missing.length) return text(res, 400, `bad authorization request: missing ${missing.join(', ')}`);
    if (q.client_id !== clientId) return text(res, 400, `bad authorization request: unknown client_id ${q.client_id}`);
    let back: URL;
    try {
      back = new URL(q.redirect_uri!);
    } catch {
      return text(res, 400, 'bad authorization request: redirect_uri is not an absolute URL');
    }
    if (back.hash) return text(res, 400, 'bad authorization request: redirect_uri may not have a fragment');
    if (q.response_type !== 'code') return text(res, 400, `bad authorization request: response_type must be code, not ${q.response_type}`);
    if (q.code_challenge_method !== 'S256')
      return text(res, 400, `bad authorization request: code_challenge_method must be S256, not ${q.code_challenge_method}`);
    if (!PKCE_VALUE.test(q.code_challenge!))
      return text(res, 400, 'bad authorization request: code_challenge is not 43 to 128 unreserved characters');
    if (!signedIn) return text(res, 400, 'bad authorization request: no user signed in (the test calls signInAs first)');
    const grant = grants.push({ user: signedIn, scope: q.scope! }) - 1;
    const code = randomToken();
    codes.set(code, {
      grant,
      user: signedIn,
      clientId: q.client_id,
      redirectUri: q.redirect_uri!,
      challenge: q.code_challenge!,
      scope: q.scope!,
      expiresAt: Date.now() + CODE_TTL_MS,
      used: false,
    });
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.state!);
    res.writeHead(302, { location: back.toString(), 'cache-control': 'no-store' });
    res.end();
  }

  async function tokenEndpoint(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    if (!form) return json(res, 400, { error: 'invalid_request', error_description: 'the body must be application/x-www-form-urlencoded' });
    const grantType = form.grant_type ?? '';
    tokenRequests[grantType] = (tokenRequests[grantType] ?? 0) + 1;
    const client = authenticateClient(req, form);
    if (!client.ok) {
      return json(
        res,
        401,
        { error: 'invalid_client', error_description: 'client authentication failed' },
        client.basic ? { 'www-authenticate': 'Basic realm="oauth"' } : {},
      );
    }
    if (grantType === 'authorization_code') {
      const code = codes.get(form.code ?? '');
      const refuse = (why: string) => json(res, 400, { error: 'invalid_grant', error_description: why });
      if (!code) return refuse('unknown authorization code');
      if (code.used) {
        // RFC 6749 §4.1.2: a code used twice revokes what it was exchanged for.
        revokeGrant(code.grant);
        return refuse('authorization code already used');
      }
      if (code.expiresAt <= Date.now()) return refuse('authorization code expired');
      if (code.clientId !== clientId) return refuse('authorization code issued to another client');
      if (form.redirect_uri !== code.redirectUri) return refuse('redirect_uri differs from the authorization request');
      const verifier = form.code_verifier ?? '';
      // RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) must equal the code_challenge.
      if (!PKCE_VALUE.test(verifier) || b64url(sha256(verifier)) !== code.challenge)
        return refuse('code_verifier does not match the code_challenge');
      code.used = true;
      const scope = code.scope;
      return json(res, 200, {
        access_token: issueAccess(code.grant),
        token_type: 'Bearer',
        expires_in: lifetime,
        refresh_token: issueRefresh(code.grant),
        scope,
        ...(scope.split(' ').includes('openid') ? { id_token: idToken(code.user, scope) } : {}),
      });
    }
    if (grantType === 'refresh_token') {
      const entry = refresh.get(form.refresh_token ?? '');
      if (!entry || entry.revoked)
        return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      const { scope } = grants[entry.grant]!;
      return json(res, 200, {
        access_token: issueAccess(entry.grant),
        token_type: 'Bearer',
        expires_in: lifetime,
        scope,
        ...(opts.rotateRefreshTokens ? { refresh_token: issueRefresh(entry.grant) } : {}),
      });
    }
    return json(res, 400, { error: 'unsupported_grant_type', error_description: `grant_type ${grantType || '(none)'} is not supported` });
  }

  function userinfo(req: IncomingMessage, res: ServerResponse) {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const grant = accessGrant(bearer);
    if (!grant) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer error="invalid_token"` });
    const { user } = grant;
    const name = opts.users[user]?.name;
    const hidden = opts.users[user]?.noEmail;
    if (opts.profile === 'google') {
      return json(res, 200, {
        sub: subject(user),
        ...(hidden ? {} : { email: user, email_verified: true }),
        ...(name ? { name, given_name: name.split(' ')[0] } : {}),
      });
    }
    return json(res, 200, {
      id: subject(user),
      ...(name ? { displayName: name } : {}),
      ...(hidden ? {} : { mail: user, userPrincipalName: user }),
    });
  }

  async function introspect(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    if (!form || !form.token) return json(res, 400, { error: 'invalid_request', error_description: 'form field token is required' });
    const grant = accessGrant(form.token);
    if (!grant) return json(res, 200, { active: false });
    return json(res, 200, {
      active: true,
      email: grant.user,
      username: grant.user,
      sub: subject(grant.user),
      client_id: clientId,
      token_type: 'Bearer',
      exp: Math.floor(grant.expiresAt / 1000),
      scope: grant.scope,
    });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = `${req.method} ${url.pathname}`;
    const handle = async () => {
      if (route === 'GET /authorize') return authorize(url, res);
      if (route === 'POST /token') return tokenEndpoint(req, res);
      if (route === 'GET /userinfo') return userinfo(req, res);
      if (route === 'POST /introspect') return introspect(req, res);
      json(res, 404, { error: 'not_found' });
    };
    handle().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: (err as Error).message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    profile: opts.profile,
    url: origin,
    authUrl: `${origin}/authorize`,
    tokenUrl: `${origin}/token`,
    userinfoUrl: `${origin}/userinfo`,
    introspectUrl: `${origin}/introspect`,
    clientId,
    clientSecret,
    signInAs(email) {
      if (!Object.hasOwn(opts.users, email)) throw new Error(`${email} is not a user of this OAuth server`);
      signedIn = email;
    },
    authorizeRequests,
    tokenRequests,
    accessTokenUser: (t) => accessGrant(t)?.user,
    issuedRefreshTokens: () => [...refresh.keys()],
    revoke(refreshToken) {
      const entry = refresh.get(refreshToken);
      if (entry) entry.revoked = true;
      return entry !== undefined;
    },
    revokeAll() {
      for (const entry of refresh.values()) entry.revoked = true;
    },
    expireAccessTokens() {
      for (const entry of access.values()) entry.expiresAt = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
