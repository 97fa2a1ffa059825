import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { KmsKeyProvider } from '@outbound/aws/kms-keys';
import { systemClock } from '@outbound/core/ports/clock';
import { createLogger } from '@outbound/core/log';
import type { Deps } from '@outbound/core/deps';

/**
 * The one place adapters are plugged into ports. On AWS the deps are built
 * once per Lambda container from its environment; the local runtime builds
 * its own (pointing the same adapters at the stand-ins) and provides them.
 */
let current: Deps | undefined;

export function provideDeps(deps: Deps): void {
  current = deps;
}

export function getDeps(): Deps {
  return (current ??= fromLambdaEnvironment(process.env));
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set.`);
  return value;
}

/** Configuration is read once, here, and validated; core never reads process.env. */
export function fromLambdaEnvironment(env: NodeJS.ProcessEnv): Deps {
  return {
    store: new DynamoStore(new DynamoDBClient({}), required(env, 'TABLE_NAME')),
    keys: new KmsKeyProvider({ client: new KMSClient({}), keyId: required(env, 'KMS_KEY_ID') }),
    clock: systemClock,
    wallClock: systemClock,
    log: createLogger(),
    config: {
      publicBaseUrl: env.PUBLIC_BASE_URL ?? '',
      rateLimits: env.RATE_LIMITS !== 'off',
    },
  };
}
