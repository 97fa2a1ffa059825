/**
 * The values the stack links to a function (stacks/index.ts), read with SST's
 * Resource: SST puts them, encrypted, in the function's bundle, and only the
 * key in its environment, so a secret never sits in a Lambda's environment in
 * plain text. The local runtime links nothing and reads its environment.
 */
import { Resource } from 'sst/resource';
import { OAUTH_SECRETS } from '../manifest.ts';

/** The linked OAuth apps as the environment variables the shared configuration reads (GOOGLE_CLIENT_SECRET and the like). */
export function linkedOAuthEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [variable, name] of Object.entries(OAUTH_SECRETS)) {
    // `in`, not a read: Resource throws for a name that is not linked (a function that handles no OAuth).
    const linked = name in Resource ? (Resource as unknown as Record<string, { value?: unknown }>)[name]?.value : undefined;
    if (typeof linked === 'string' && linked) out[variable] = linked;
  }
  return out;
}
