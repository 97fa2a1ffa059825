import type { Clock } from './ports/clock.ts';
import type { KeyProvider } from './ports/key-provider.ts';
import type { Store } from './ports/store.ts';
import type { Blobs } from './ports/blobs.ts';
import type { Metrics } from './ports/metrics.ts';
import type { Logger } from './log.ts';
import type { SignInChecker } from './ports/mail.ts';
import type { Mailer } from './ports/mailer.ts';
import type { MailReader } from './ports/mail-reader.ts';
import type { AiWriter } from './ports/ai.ts';
import type { SendQueue } from './ports/queue.ts';
import type { WebhookPoster, WebhookQueue } from './ports/webhooks.ts';
import type { DnsResolver } from './ports/dns.ts';
import type { OAuthApp, OAuthClient, OAuthProviderName } from './ports/oauth.ts';

/** Configuration core needs, read once at start by the caller: core never reads process.env. */
export interface EngineConfig {
  /** The installation's own address (unsubscribe links, OAuth redirects); '' when it has none. */
  publicBaseUrl: string;
  /** Per-minute request limits; the login lockout holds either way. */
  rateLimits: boolean;
  /** DNS_SERVERS as `host:port`; undefined for the system resolver. */
  dnsServers?: string[];
  /** Engine ms per wall ms: TIME_SCALE locally, 1 on AWS. */
  timeScale: number;
  /** The OAuth apps set up (GOOGLE_CLIENT_ID and the like); a provider missing here cannot connect mailboxes. */
  oauth?: Partial<Record<OAuthProviderName, OAuthApp>>;
  /** How long POST /v1/leads/import stores rows before answering RUNNING: 18 s; tests shorten it. */
  importAnswerWithinMs?: number;
}

/** Everything a core verb may touch, handed in by functions/src/lib/deps.ts or a test. */
export interface Deps {
  store: Store;
  keys: KeyProvider;
  /** Engine time: scaled by TIME_SCALE locally. Drives the send pipeline. */
  clock: Clock;
  /** Wall time: tokens, lockouts and rate-limit windows never run faster. */
  wallClock: Clock;
  log: Logger;
  config: EngineConfig;
  signIn: SignInChecker;
  mailer: Mailer;
  mailReader: MailReader;
  ai: AiWriter;
  queue: SendQueue;
  /** Outbound webhooks' delivery queue: only the delivery worker touches it. */
  webhookQueue: WebhookQueue;
  /** POSTs an event, refusing private, link-local and metadata addresses (loopback too, except in the local runtime). */
  webhookPoster: WebhookPoster;
  /** Token exchanges and refreshes with the mail suites (XOAUTH2 mailboxes). */
  oauth: OAuthClient;
  /** Every DNS lookup of the domain check, through DNS_SERVERS when set. */
  dns: DnsResolver;
  /** Uploaded files (CSV imports) until their work is done. */
  blobs: Blobs;
  /** Uniform in [0, 1): jitter and spintax. Tests pass a seeded one. */
  random: () => number;
  /** Counts for dashboards and alarms (CloudWatch embedded metrics on AWS). */
  metrics: Metrics;
}
