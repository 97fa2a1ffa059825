import { describe, expect, it } from 'vitest';
import { engineOptionsFromEnv } from './config.ts';

describe('engineOptionsFromEnv', () => {
  it('applies the documented defaults', () => {
    expect(engineOptionsFromEnv({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './.data',
      admin: undefined,
      publicBaseUrl: undefined,
      timeScale: 1,
      rateLimits: true,
      dnsServers: undefined,
      oauth: {},
      logLevel: 'info',
    });
  });

  it('reads an OAuth app only with both client values, with the provider endpoints unless overridden', () => {
    const options = engineOptionsFromEnv({
      GOOGLE_CLIENT_ID: 'gid',
      GOOGLE_CLIENT_SECRET: 'gsecret',
      GOOGLE_TOKEN_URL: 'http://127.0.0.1:9/token',
      GOOGLE_IMAP_HOST: '127.0.0.1',
      GOOGLE_IMAP_PORT: '1143',
      MICROSOFT_CLIENT_ID: 'only-half',
    });
    expect(options.oauth).toEqual({
      google: {
        clientId: 'gid',
        clientSecret: 'gsecret',
        authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenUrl: 'http://127.0.0.1:9/token',
        userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
        servers: { smtp: { host: 'smtp.gmail.com', port: 587 }, imap: { host: '127.0.0.1', port: 1143 } },
      },
    });
    expect(() => engineOptionsFromEnv({ GOOGLE_CLIENT_ID: 'gid', GOOGLE_CLIENT_SECRET: 's', GOOGLE_SMTP_PORT: 'x' })).toThrow(
      /GOOGLE_SMTP_PORT: must be a port/,
    );
  });

  it('keeps an empty PUBLIC_BASE_URL: an installation without a domain for the unsubscribe page', () => {
    expect(engineOptionsFromEnv({ PUBLIC_BASE_URL: '' }).publicBaseUrl).toBe('');
  });

  it('refuses half an admin and a bad value with a sentence naming the variable', () => {
    expect(() => engineOptionsFromEnv({ ADMIN_EMAIL: 'a@b.test' })).toThrow(/ADMIN_EMAIL and ADMIN_PASSWORD/);
    expect(() => engineOptionsFromEnv({ RATE_LIMITS: 'maybe' })).toThrow(/RATE_LIMITS/);
    expect(() => engineOptionsFromEnv({ TIME_SCALE: '0' })).toThrow(/TIME_SCALE: must be at least 1/);
  });
});
