/**
 * A small OAuth 2.0 authorization server on 127.0.0.1 for tests, playing
 * Google or Microsoft: authorize (consents at once as the user the test
 * names), token (authorization code with the PKCE check of RFC 7636 §4.6,
 * and refresh), userinfo in the provider's shape, and RFC 7662 introspection
 * (which Dovecot's oauth2 passdb asks). Written for the tests: it checks what
 * a real provider checks on the engine's side of the exchange.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthServerOptions {
  profile: 'google' | 'microsoft';
  /** Accounts that can sign in, with their display name (omitted from the profile when not given). */
  users: Record<string, { name?: string }>;
  /** Access token lifetime in seconds (default 3600). */
  expiresIn?: number;
  /** Hand out a new refresh token with every refresh (Microsoft may). */
  rotateRefreshTokens?: boolean;
}

export interface TestOAuthServer {
  url: string;
  authUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  introspectUrl: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorize consents as. */
  signInAs(email: string): void;
  /** The query of every authorize request. */
  authorizeRequests: Record<string, string>[];
  /** Token requests by grant type, successful or not. */
  tokenRequests: Record<string, number>;
  /** Who a still-valid access token belongs to. */
  accessTokenUser(token: string): string | undefined;
  issuedRefreshTokens(): string[];
  /** Every refresh token stops working (the grant was revoked). */
  revokeAll(): void;
  /** Every access token issued so far stops working. */
  expireAccessTokens(): void;
  stop(): Promise<void>;
}

interface Code {
  user: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  expiresAt: number;
  used: boolean;
}

const b64url = (buf: Buffer) => buf.toString('base64url');
const token = () => b64url(randomBytes(24));

export async function startOAuthServer(opts: OAuthServerOptions): Promise<TestOAuthServer> {
  const clientId = `client-${token().slice(0, 8)}`;
  const clientSecret = `secret-${token()}`;
  const codes = new Map<string, Code>();
  const access = new Map<string, { user: string; expiresAt: number }>();
  const refresh = new Map<string, { user: string; revoked: boolean }>();
  const authorizeRequests: Record<string, string>[] = [];
  const tokenRequests: Record<string, number> = {};
  let signedIn: string | undefined;

  const issue = (user: string) => {
    const at = token();
    access.set(at, { user, expiresAt: Date.now() + (opts.expiresIn ?? 3600) * 1000 });
    return at;
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const bearerUser = (req: IncomingMessage) => {
    const t = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const entry = t ? access.get(t) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry.user : undefined;
  };
  const readForm = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
  };
  /** Client authentication in the body (client_secret_post) or HTTP Basic (client_secret_basic), RFC 6749 §2.3.1. */
  const clientOk = (req: IncomingMessage, form: Record<string, string>) => {
    const basic = /^Basic (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [form.client_id, form.client_secret];
    return id === clientId && secret === clientSecret;
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    try {
      if (req.method === 'GET' && url.pathname === '/authorize') {
        const q = Object.fromEntries(url.searchParams);
        authorizeRequests.push(q);
        const missing = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'].filter((k) => !q[k]);
        if (missing.length || q.response_type !== 'code' || q.client_id !== clientId || q.code_challenge_method !== 'S256' || !signedIn) {
          res.writeHead(400, { 'content-type': 'text/plain' });
          return res.end(`bad authorization request: ${missing.join(', ') || 'wrong value or no user signed in'}`);
        }
        const code = token();
        codes.set(code, { user: signedIn, clientId, redirectUri: q.redirect_uri!, challenge: q.code_challenge!, expiresAt: Date.now() + 60_000, used: false });
        const back = new URL(q.redirect_uri!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.state!);
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const form = await readForm(req);
        const grant = form.grant_type ?? '';
        tokenRequests[grant] = (tokenRequests[grant] ?? 0) + 1;
        if (!clientOk(req, form)) return json(res, 401, { error: 'invalid_client' });
        if (grant === 'authorization_code') {
          const code = codes.get(form.code ?? '');
          const verifier = form.code_verifier ?? '';
          // RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must equal the code_challenge.
          const pkce = b64url(createHash('sha256').update(verifier).digest());
          if (!code || code.used || code.expiresAt < Date.now() || code.redirectUri !== form.redirect_uri || pkce !== code.challenge) {
            if (code) code.used = true;
            return json(res, 400, { error: 'invalid_grant' });
          }
          code.used = true;
          const rt = token();
          refresh.set(rt, { user: code.user, revoked: false });
          const idToken = [{ alg: 'none' }, { email: code.user, name: opts.users[code.user]?.name }, {}].map((p) => b64url(Buffer.from(JSON.stringify(p)))).join('.');
          return json(res, 200, { access_token: issue(code.user), token_type: 'Bearer', expires_in: opts.expiresIn ?? 3600, refresh_token: rt, scope: 'mail', id_token: idToken });
        }
        if (grant === 'refresh_token') {
          const entry = refresh.get(form.refresh_token ?? '');
          if (!entry || entry.revoked) return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
          let rt: string | undefined;
          if (opts.rotateRefreshTokens) {
            rt = token();
            refresh.set(rt, { user: entry.user, revoked: false });
          }
          return json(res, 200, { access_token: issue(entry.user), token_type: 'Bearer', expires_in: opts.expiresIn ?? 3600, ...(rt ? { refresh_token: rt } : {}) });
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (req.method === 'GET' && url.pathname === '/userinfo') {
        const user = bearerUser(req);
        if (!user) return json(res, 401, { error: 'invalid_token' });
        const name = opts.users[user]?.name;
        return json(
          res,
          200,
          opts.profile === 'google'
            ? { sub: createHash('sha256').update(user).digest('hex').slice(0, 21), email: user, email_verified: true, ...(name ? { name, given_name: name.split(' ')[0] } : {}) }
            : { id: createHash('sha256').update(user).digest('hex').slice(0, 36), mail: user, userPrincipalName: user, ...(name ? { displayName: name } : {}) },
        );
      }
      if (req.method === 'POST' && url.pathname === '/introspect') {
        const form = await readForm(req);
        const entry = access.get(form.token ?? '');
        if (!entry || entry.expiresAt <= Date.now()) return json(res, 200, { active: false });
        return json(res, 200, { active: true, email: entry.user, username: entry.user, sub: entry.user, exp: Math.floor(entry.expiresAt / 1000), scope: 'mail' });
      }
      json(res, 404, { error: 'not_found' });
    } catch (err) {
      json(res, 500, { error: 'server_error', error_description: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    authUrl: `${url}/authorize`,
    tokenUrl: `${url}/token`,
    userinfoUrl: `${url}/userinfo`,
    introspectUrl: `${url}/introspect`,
    clientId,
    clientSecret,
    signInAs(email) {
      if (!opts.users[email]) throw new Error(`${email} is not a user of this OAuth server`);
      signedIn = email;
    },
    authorizeRequests,
    tokenRequests,
    accessTokenUser(t) {
      const entry = access.get(t);
      return entry && entry.expiresAt > Date.now() ? entry.user : undefined;
    },
    issuedRefreshTokens: () => [...refresh.keys()],
    revokeAll() {
      for (const entry of refresh.values()) entry.revoked = true;
    },
    expireAccessTokens() {
      for (const entry of access.values()) entry.expiresAt = 0;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
