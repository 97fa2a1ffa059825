import * as z from 'zod';
import type { EngineConfig } from './deps.ts';
import { oauthAppsFromEnv } from './oauth/providers.ts';
import { describeIssue } from './validate.ts';
import type { Level } from './log.ts';

/**
 * The environment both runtimes read (the Lambda functions and `npm start`),
 * checked by one schema: PUBLIC_BASE_URL, RATE_LIMITS, DNS_SERVERS,
 * LOG_LEVEL, the AI base URLs and the OAuth apps. Each runtime adds its own (TABLE_NAME on
 * AWS, PORT and DATA_DIR locally). Core never reads process.env: the caller
 * hands the environment in.
 */
export const SharedEnv = z.object({
  PUBLIC_BASE_URL: z.string().max(2000).optional(),
  RATE_LIMITS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (!value?.trim()) return undefined;
      const servers = value.split(',').map((s) => s.trim());
      const bad = servers.find((s) => !/^[^\s:]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/i.test(s));
      if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `"${bad}" is not host:port` });
      return servers;
    }),
  /** The least severe log lines written: debug, info (default), warn or error. */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error'], { error: 'must be debug, info, warn or error' }).default('info'),
  OPENAI_BASE_URL: z.url({ error: 'must be a URL' }).optional(),
  ANTHROPIC_BASE_URL: z.url({ error: 'must be a URL' }).optional(),
});

export interface SharedSettings {
  config: Omit<EngineConfig, 'timeScale' | 'publicBaseUrl'> & { publicBaseUrl?: string };
  openaiBaseUrl?: string;
  anthropicBaseUrl?: string;
  logLevel: Level;
}

/** Reads and checks the shared part of an environment; throws an Error naming the variable. */
export function sharedSettingsFromEnv(env: Record<string, string | undefined>): SharedSettings {
  const parsed = SharedEnv.safeParse(env);
  if (!parsed.success) throw new Error(`Configuration: ${describeIssue(parsed.error)}`);
  const e = parsed.data;
  return {
    config: {
      publicBaseUrl: e.PUBLIC_BASE_URL,
      rateLimits: e.RATE_LIMITS === 'on',
      dnsServers: e.DNS_SERVERS,
      oauth: oauthAppsFromEnv(env),
    },
    openaiBaseUrl: e.OPENAI_BASE_URL,
    anthropicBaseUrl: e.ANTHROPIC_BASE_URL,
    logLevel: e.LOG_LEVEL,
  };
}
