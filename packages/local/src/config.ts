import * as z from 'zod';
import { sharedSettingsFromEnv } from '@outbound/core/config';
import { describeIssue } from '@outbound/core/validate';
import type { EngineOptions } from './engine.ts';

/** What only the local runtime reads; the rest is the shared schema both runtimes use. */
const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./.data'),
  ADMIN_EMAIL: z.string().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  TIME_SCALE: z.coerce.number().min(1, { error: 'must be at least 1' }).default(1),
});

/** The local runtime's configuration, read once from the environment and checked (README, Configuration). */
export function engineOptionsFromEnv(env: NodeJS.ProcessEnv): EngineOptions {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new Error(`Configuration: ${describeIssue(parsed.error)}`);
  const e = parsed.data;
  const shared = sharedSettingsFromEnv(env);
  if (Boolean(e.ADMIN_EMAIL) !== Boolean(e.ADMIN_PASSWORD)) {
    throw new Error('Configuration: set both ADMIN_EMAIL and ADMIN_PASSWORD, or neither.');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    admin: e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : undefined,
    publicBaseUrl: shared.config.publicBaseUrl,
    timeScale: e.TIME_SCALE,
    rateLimits: shared.config.rateLimits,
    dnsServers: shared.config.dnsServers,
    oauth: shared.config.oauth,
    openaiBaseUrl: shared.openaiBaseUrl,
    anthropicBaseUrl: shared.anthropicBaseUrl,
    logLevel: shared.logLevel,
  };
}
