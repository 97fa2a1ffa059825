import type { MailServers, OAuthApp, OAuthProviderName } from '../ports/oauth.ts';

/**
 * What the engine needs of each mail suite: the consent it asks for, where
 * its endpoints are, where its mail servers are, and which profile field
 * holds the person's name.
 */
export interface ProviderRules {
  /** The mailbox `provider` this OAuth provider connects. */
  mailboxProvider: 'GOOGLE' | 'MICROSOFT';
  label: string;
  scope: string;
  /** Extra authorization parameters: Google only grants a refresh token with offline access and a fresh consent. */
  extraParams: Record<string, string>;
  endpoints: Omit<OAuthApp, 'clientId' | 'clientSecret' | 'servers'>;
  smtp: { host: string; port: number };
  imap: { host: string; port: number };
  nameField: string;
  envPrefix: string;
}

export const PROVIDERS: Record<OAuthProviderName, ProviderRules> = {
  google: {
    mailboxProvider: 'GOOGLE',
    label: 'Google',
    // Gmail's IMAP and SMTP accept only the full-mail scope for XOAUTH2.
    scope: 'https://mail.google.com/ openid email profile',
    extraParams: { access_type: 'offline', prompt: 'consent' },
    endpoints: {
      authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    },
    smtp: { host: 'smtp.gmail.com', port: 587 },
    imap: { host: 'imap.gmail.com', port: 993 },
    nameField: 'name',
    envPrefix: 'GOOGLE',
  },
  microsoft: {
    mailboxProvider: 'MICROSOFT',
    label: 'Microsoft',
    scope: 'offline_access https://outlook.office.com/SMTP.Send https://outlook.office.com/IMAP.AccessAsUser.All openid email profile',
    extraParams: {},
    endpoints: {
      authUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
      tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
      userinfoUrl: 'https://graph.microsoft.com/v1.0/me',
    },
    smtp: { host: 'smtp.office365.com', port: 587 },
    imap: { host: 'outlook.office365.com', port: 993 },
    nameField: 'displayName',
    envPrefix: 'MICROSOFT',
  },
};

export const providerOf = (mailboxProvider: unknown): OAuthProviderName | undefined =>
  (Object.keys(PROVIDERS) as OAuthProviderName[]).find((p) => PROVIDERS[p].mailboxProvider === mailboxProvider);

/**
 * The OAuth apps an installation has, from its environment's
 * `<PROVIDER>_CLIENT_ID`, `_CLIENT_SECRET` and the optional endpoint
 * overrides `_AUTH_URL`, `_TOKEN_URL`, `_USERINFO_URL`, `_SMTP_HOST`,
 * `_SMTP_PORT`, `_IMAP_HOST`, `_IMAP_PORT` (tests point them at local
 * servers). A provider without both client values is not set up.
 */
function portOf(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name}: must be a port from 1 to 65535.`);
  return port;
}

export function oauthAppsFromEnv(env: Record<string, string | undefined>): Partial<Record<OAuthProviderName, OAuthApp>> {
  const apps: Partial<Record<OAuthProviderName, OAuthApp>> = {};
  for (const [name, rules] of Object.entries(PROVIDERS) as [OAuthProviderName, ProviderRules][]) {
    const v = (suffix: string) => env[`${rules.envPrefix}_${suffix}`]?.trim() || undefined;
    const clientId = v('CLIENT_ID');
    const clientSecret = v('CLIENT_SECRET');
    if (!clientId || !clientSecret) continue;
    apps[name] = {
      clientId,
      clientSecret,
      authUrl: v('AUTH_URL') ?? rules.endpoints.authUrl,
      tokenUrl: v('TOKEN_URL') ?? rules.endpoints.tokenUrl,
      userinfoUrl: v('USERINFO_URL') ?? rules.endpoints.userinfoUrl,
      servers: {
        smtp: { host: v('SMTP_HOST') ?? rules.smtp.host, port: portOf(`${rules.envPrefix}_SMTP_PORT`, v('SMTP_PORT'), rules.smtp.port) },
        imap: { host: v('IMAP_HOST') ?? rules.imap.host, port: portOf(`${rules.envPrefix}_IMAP_PORT`, v('IMAP_PORT'), rules.imap.port) },
      },
    };
  }
  return apps;
}

/**
 * The mail servers an OAuth mailbox of this provider uses: the installation's (its OAuth app's
 * servers), else the provider's own. Never the ones a caller typed: a mailbox's bearer token,
 * good for all of its mail, must reach only its provider.
 */
export function oauthServers(config: { oauth?: Partial<Record<OAuthProviderName, OAuthApp>> }, provider: OAuthProviderName): MailServers {
  const rules = PROVIDERS[provider];
  return config.oauth?.[provider]?.servers ?? { smtp: rules.smtp, imap: rules.imap };
}
