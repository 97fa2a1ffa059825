import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsSendQueue } from '@outbound/aws/sqs-queue';
import { aiWriter } from '@outbound/mail/ai';
import { smtpMailer } from '@outbound/mail/mailer';
import { imapReader } from '@outbound/mail/sent-folder';
import { hostResolver } from '@outbound/mail/dns';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { KmsKeyProvider } from '@outbound/aws/kms-keys';
import { systemClock } from '@outbound/core/ports/clock';
import { createLogger } from '@outbound/core/log';
import type { Deps } from '@outbound/core/deps';
import { signInChecker } from '@outbound/mail/checker';
import { parseDnsServers } from '@outbound/mail/dns';
import { dnsResolver } from '@outbound/mail/dns-resolver';

/**
 * The one place adapters are plugged into ports. On AWS the deps are built
 * once per Lambda container from its environment; the local runtime builds
 * its own (pointing the same adapters at the stand-ins) and provides them.
 */
let lambdaDeps: Deps | undefined;
const scoped = new AsyncLocalStorage<Deps>();

/**
 * Runs `fn` with `deps` as the handlers' deps. The local runtime wraps every
 * invocation in it, so two engines in one process (tests) never share deps.
 */
export function withDeps<T>(deps: Deps, fn: () => T): T {
  return scoped.run(deps, fn);
}

export function getDeps(): Deps {
  return scoped.getStore() ?? (lambdaDeps ??= fromLambdaEnvironment(process.env));
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set.`);
  return value;
}

/** Configuration is read once, here, and validated; core never reads process.env. */
export function fromLambdaEnvironment(env: NodeJS.ProcessEnv): Deps {
  const dnsServers = parseDnsServers(env.DNS_SERVERS);
  return {
    store: new DynamoStore(new DynamoDBClient({}), required(env, 'TABLE_NAME')),
    keys: new KmsKeyProvider({ client: new KMSClient({}), keyId: required(env, 'KMS_KEY_ID') }),
    clock: systemClock,
    wallClock: systemClock,
    log: createLogger(),
    config: {
      publicBaseUrl: env.PUBLIC_BASE_URL ?? '',
      rateLimits: env.RATE_LIMITS !== 'off',
      dnsServers,
      timeScale: 1,
    },
    signIn: signInChecker(dnsServers),
    mailer: smtpMailer({ resolver: hostResolver(dnsServers) }),
    mailReader: imapReader({ resolver: hostResolver(dnsServers) }),
    ai: aiWriter({ openaiBaseUrl: env.OPENAI_BASE_URL, anthropicBaseUrl: env.ANTHROPIC_BASE_URL }),
    queue: new SqsSendQueue({ client: new SQSClient({}), queueUrl: required(env, 'QUEUE_URL_SEND') }),
    random: Math.random,
    dns: dnsResolver({ servers: dnsServers }),
  };
}
