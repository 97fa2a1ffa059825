/**
 * The one typed description of the engine: the table, the queues, the
 * functions with their routes, and the schedules. The local runtime
 * (packages/local) serves it and sst.config.ts (through stacks/) deploys it,
 * so what runs locally and what runs on AWS cannot drift apart.
 */
import type { InstallSecretName } from '@outbound/core/settings/index';

/** Which per-minute limit a route counts against (docs/api.md, Rate limits). */
export type RateBucket = 'login' | 'import' | 'webhook' | 'publicCheck' | 'global';

export const rateLimits: Record<RateBucket, number> = {
  login: 10,
  import: 10,
  webhook: 30,
  publicCheck: 20,
  global: 100,
};

export type BodyKind = 'json' | 'none' | 'raw';

export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * API Gateway path syntax: /v1/leads/{id}. Under one parent, every route
   * names its variable alike (API Gateway refuses `{id}` beside `{domain}`
   * at one level with a 409): the name is the route key's, not the client's.
   */
  path: string;
  /**
   * The route's name in the API description and in clients generated from it (`listCampaigns`,
   * `launchCampaign`): lowerCamelCase, a verb and a noun, unique. Required, so a route cannot be
   * added without one; once published it stays, since generated clients name their calls after it.
   */
  operationId: string;
  /** Public routes take no bearer token (docs/api.md, Authentication). */
  public?: boolean;
  rate?: RateBucket;
  /** How the body is read: JSON (default for POST/PUT/PATCH), none, or raw (multipart, forms). */
  body?: BodyKind;
  /**
   * Take only `Content-Type: application/json` (415 otherwise). For public routes a browser could be
   * made to post to: a form or `text/plain` post needs no CORS preflight, an `application/json` one does.
   */
  jsonOnly?: boolean;
}

/** Adapter kits with heavy libraries a function may carry (functions/src/lib/kits): SMTP and IMAP, SMTP alone, the AI SDKs, S3. */
export type KitName = 'mail' | 'smtp' | 'ai' | 'uploads';

/** What the engine seals with KMS; the encryption context's `purpose` names it, and each role may seal only its own. */
export type SealPurpose =
  'mailbox-password' | 'mailbox-oauth-refresh' | 'seed-password' | 'webhook-secret' | 'ai-key' | 'webhook-signing-secret';

/**
 * The OAuth apps, as SST secrets (`npx sst secret set GoogleClientSecret ...`), by the environment variable the
 * shared configuration reads each into. The stack links them to the functions that exchange or refresh tokens,
 * which read them with SST's Resource (functions/src/lib/linked.ts): never a plaintext Lambda environment variable.
 */
export const OAUTH_SECRETS = {
  GOOGLE_CLIENT_ID: 'GoogleClientId',
  GOOGLE_CLIENT_SECRET: 'GoogleClientSecret',
  MICROSOFT_CLIENT_ID: 'MicrosoftClientId',
  MICROSOFT_CLIENT_SECRET: 'MicrosoftClientSecret',
} as const;

/** The installation's own secrets (signing key, suppression salt, unsubscribe key): made by whichever function first needs one. */
export const INSTALL_SECRET_PURPOSE = 'install-secret';

export interface FunctionDef {
  /** Path of the module, relative to functions/src, exporting `handler`. */
  handler: string;
  routes?: RouteDef[];
  /** Also answers API Gateway's `$default` route: whatever no other route matches. */
  catchAll?: boolean;
  /**
   * Drains this queue (an SQS event source with partial batch responses). The
   * webhooks queue's consumer is also the only function that puts messages on it.
   */
  consumes?: QueueName;
  /** Started by every file stored in this bucket (S3's ObjectCreated event on AWS, the local blob store's callback locally). */
  onStored?: 'uploads';
  timeoutSeconds?: number;
  memoryMb?: number;
  /**
   * What it may reach beyond the table and opening secrets: the kits its
   * handler names (and its bundle carries), whether it puts messages on the
   * send queue, what it seals. The AWS role grants exactly this, and the
   * local runtime holds each function to it, so the tests find a function
   * that reaches further.
   */
  uses?: KitName[];
  enqueues?: boolean;
  seals?: SealPurpose[];
  /** What it opens (KMS Decrypt, by the encryption context's purpose); the installation's own secrets always. */
  opens?: SealPurpose[];
  /**
   * Which of the installation's own secrets it opens (and makes, when it is the first to need one), by name, for a
   * function that needs only these: KMS then refuses it the others (the encryption context's `name`). Absent: all.
   */
  installSecrets?: InstallSecretName[];
  /**
   * For a queue consumer: how many invocations its event source runs at once
   * (the mapping's maximumConcurrency, 2 to 1000). Not reserved concurrency:
   * a new account has 10 executions and may reserve none (docs/deploy.md).
   */
  consumerConcurrency?: number;
  /**
   * A page whose browser PUTs files to this bucket's signed links: the function is told the bucket's name (for its
   * Content-Security-Policy) and given no permission on it.
   */
  pageUploadsTo?: 'uploads';
}

export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: {
    gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    gsi2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    gsi3: { partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
    gsi4: { partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
  },
  /** Only short-lived bookkeeping (rate-limit windows) carries it: lead data never expires. */
  ttlAttribute: 'expiresAt',
} as const;

export const functions = {
  auth: {
    handler: 'http/auth.ts',
    // JSON only: a web page can make a visitor's browser post text/plain anywhere, and each such post would count as a guess.
    routes: [{ method: 'POST', path: '/v1/auth/login', public: true, rate: 'login', jsonOnly: true, operationId: 'login' }],
    // A public function signs tokens and nothing else: it cannot open the suppression salt or the unsubscribe key.
    installSecrets: ['JWT_SECRET'],
  },
  mailboxes: {
    handler: 'http/mailboxes.ts',
    uses: ['mail'],
    seals: ['mailbox-password'],
    // The sign-in check may wait 10 s on each server.
    timeoutSeconds: 29,
    routes: [
      { method: 'GET', path: '/v1/mailboxes', operationId: 'listMailboxes' },
      { method: 'POST', path: '/v1/mailboxes', operationId: 'createMailbox' },
      { method: 'PATCH', path: '/v1/mailboxes/{id}', operationId: 'updateMailbox' },
      { method: 'DELETE', path: '/v1/mailboxes/{id}', operationId: 'deleteMailbox' },
    ],
  },
  domains: {
    handler: 'http/domains.ts',
    routes: [
      { method: 'GET', path: '/v1/domains', operationId: 'listDomains' },
      { method: 'POST', path: '/v1/domains', operationId: 'createDomain' },
      { method: 'PATCH', path: '/v1/domains/{id}', operationId: 'updateDomain' },
    ],
  },
  leads: {
    handler: 'http/leads.ts',
    // Checks a webhook's signature with its campaign's secret.
    opens: ['webhook-secret'],
    uses: ['uploads'],
    // A person's answer (POST /v1/leads/{id}/messages) is queued at once, not at the dispatcher's next tick.
    enqueues: true,
    // An import answers within 20 s and hands the rest to the import worker; 50,000 rows are read in about 2 s.
    timeoutSeconds: 29,
    memoryMb: 1024,
    routes: [
      { method: 'GET', path: '/v1/leads', operationId: 'listLeads' },
      { method: 'POST', path: '/v1/leads', operationId: 'createLead' },
      { method: 'POST', path: '/v1/leads/webhook', public: true, rate: 'webhook', jsonOnly: true, operationId: 'createLeadFromWebhook' },
      { method: 'POST', path: '/v1/leads/import', rate: 'import', body: 'raw', operationId: 'importLeads' },
      { method: 'POST', path: '/v1/leads/imports', rate: 'import', operationId: 'createLeadImport' },
      { method: 'GET', path: '/v1/leads/imports/{importId}', operationId: 'getLeadImport' },
      { method: 'GET', path: '/v1/leads/{id}/next-send', operationId: 'getNextSend' },
      { method: 'GET', path: '/v1/leads/{id}/conversation', operationId: 'getConversation' },
      { method: 'POST', path: '/v1/leads/{id}/messages', operationId: 'sendMessage' },
      { method: 'POST', path: '/v1/leads/{id}/suppress', body: 'none', operationId: 'suppressLead' },
      { method: 'DELETE', path: '/v1/leads/erase', body: 'json', operationId: 'eraseLead' },
      { method: 'DELETE', path: '/v1/leads/{id}', operationId: 'deleteLead' },
    ],
  },
  importWorker: {
    handler: 'workers/imports.ts',
    onStored: 'uploads',
    uses: ['uploads'],
    // Stores an import's rows (50,000 in well under a minute) and resumes imports a restart interrupted.
    timeoutSeconds: 900,
    memoryMb: 1024,
  },
  campaigns: {
    handler: 'http/campaigns.ts',
    seals: ['webhook-secret'],
    routes: [
      { method: 'GET', path: '/v1/campaigns', operationId: 'listCampaigns' },
      { method: 'POST', path: '/v1/campaigns', operationId: 'createCampaign' },
      { method: 'GET', path: '/v1/campaigns/{id}', operationId: 'getCampaign' },
      { method: 'PATCH', path: '/v1/campaigns/{id}', operationId: 'updateCampaign' },
      { method: 'DELETE', path: '/v1/campaigns/{id}', operationId: 'archiveCampaign' },
      { method: 'GET', path: '/v1/campaigns/{id}/launch-check', operationId: 'getLaunchCheck' },
      { method: 'GET', path: '/v1/campaigns/{id}/variants', operationId: 'getVariants' },
      { method: 'POST', path: '/v1/campaigns/{id}/launch', body: 'none', operationId: 'launchCampaign' },
      { method: 'POST', path: '/v1/campaigns/{id}/pause', body: 'none', operationId: 'pauseCampaign' },
      { method: 'POST', path: '/v1/campaigns/{id}/webhook-secret', body: 'none', operationId: 'createCampaignWebhookSecret' },
      { method: 'DELETE', path: '/v1/campaigns/{id}/webhook-secret', operationId: 'deleteCampaignWebhookSecret' },
    ],
  },
  deliverability: {
    handler: 'http/deliverability.ts',
    // Every lookup of a check gives up after 3 s; an SPF include chain is followed level by level.
    timeoutSeconds: 29,
    routes: [
      // The domain's name, not its id: `{id}` only because its siblings under /v1/domains/ name the level so.
      { method: 'POST', path: '/v1/domains/{id}/check', body: 'none', operationId: 'checkDomain' },
      { method: 'GET', path: '/public/domain-check', public: true, rate: 'publicCheck', operationId: 'getPublicDomainCheck' },
    ],
  },
  domainCheck: {
    handler: 'schedules/domain-check.ts',
    timeoutSeconds: 300,
  },
  seedInboxes: {
    handler: 'http/seed-inboxes.ts',
    uses: ['mail'],
    seals: ['seed-password'],
    // The sign-in check may wait 10 s, then the folders are listed.
    timeoutSeconds: 29,
    routes: [
      { method: 'GET', path: '/v1/seed-inboxes', operationId: 'listSeedInboxes' },
      { method: 'POST', path: '/v1/seed-inboxes', operationId: 'createSeedInbox' },
      { method: 'DELETE', path: '/v1/seed-inboxes/{id}', operationId: 'deleteSeedInbox' },
    ],
  },
  placement: {
    handler: 'http/placement.ts',
    routes: [
      { method: 'GET', path: '/v1/domains/{id}/placement-sample', operationId: 'getPlacementSample' },
      { method: 'POST', path: '/v1/domains/{id}/placement-sample', operationId: 'startPlacementRun' },
      { method: 'GET', path: '/v1/domains/{id}/placement-runs', operationId: 'listPlacementRuns' },
    ],
  },
  placementReader: {
    handler: 'schedules/placement.ts',
    opens: ['seed-password'],
    uses: ['mail'],
    // Each seed inbox read may wait 20 s on its IMAP server.
    timeoutSeconds: 300,
  },
  replies: {
    handler: 'http/replies.ts',
    routes: [
      { method: 'GET', path: '/v1/replies', operationId: 'listReplies' },
      { method: 'PATCH', path: '/v1/replies/{id}', operationId: 'updateReply' },
    ],
  },
  oauth: {
    handler: 'http/oauth.ts',
    seals: ['mailbox-oauth-refresh'],
    // The callback waits on the provider's token and profile endpoints (15 s each at most).
    timeoutSeconds: 29,
    routes: [
      { method: 'GET', path: '/v1/oauth/{provider}/authorize', public: true, operationId: 'startOAuth' },
      { method: 'GET', path: '/v1/oauth/{provider}/callback', public: true, operationId: 'completeOAuth' },
    ],
  },
  mailboxPoller: {
    handler: 'schedules/poll.ts',
    // After the reading, replies the rules could not read go to the campaign's AI provider with the customer's key.
    opens: ['mailbox-password', 'mailbox-oauth-refresh', 'ai-key'],
    uses: ['mail', 'ai'],
    // A provider may hand a new refresh token with an access token: it is sealed at once.
    seals: ['mailbox-oauth-refresh'],
    // Reads stop 30 s before this; each IMAP server may take 20 s to answer.
    timeoutSeconds: 120,
  },
  aiKeys: {
    handler: 'http/ai-keys.ts',
    seals: ['ai-key'],
    routes: [
      { method: 'GET', path: '/v1/ai-keys', operationId: 'listAiKeys' },
      { method: 'PUT', path: '/v1/ai-keys/{provider}', operationId: 'setAiKey' },
      { method: 'DELETE', path: '/v1/ai-keys/{provider}', operationId: 'deleteAiKey' },
    ],
  },
  unsubscribe: {
    handler: 'http/unsubscribe.ts',
    routes: [
      { method: 'GET', path: '/unsubscribe/{token}', public: true, operationId: 'getUnsubscribePage' },
      { method: 'POST', path: '/unsubscribe/{token}', public: true, body: 'raw', operationId: 'unsubscribe' },
    ],
  },
  queue: {
    handler: 'http/queue.ts',
    routes: [
      { method: 'GET', path: '/v1/queue/status', operationId: 'getQueueStatus' },
      { method: 'POST', path: '/v1/queue/pause', operationId: 'pauseQueue' },
    ],
  },
  sender: {
    handler: 'queues/send.ts',
    // Signs in to send, and writes copy with the campaign's AI key.
    opens: ['mailbox-password', 'mailbox-oauth-refresh', 'ai-key'],
    consumes: 'send',
    // Sends (nodemailer) and writes copy (the AI SDKs); it never signs in to or reads a mailbox over IMAP.
    uses: ['smtp', 'ai'],
    // Hands back what it had no time for; queues an acceptance the store could not record.
    enqueues: true,
    seals: ['mailbox-oauth-refresh'],
    // Five invocations of ten sends at once, far above any cadence (an email per mailbox every 8 to 10 minutes),
    // and half of a new account's 10 executions (docs/deploy.md counts the rest: the webhook worker, the schedules, the API).
    consumerConcurrency: 5,
    // A send needs at most 35 s for AI and 40 s for SMTP and its writes (sending/sender.ts), and starts only
    // when that much is left, so 90 s leaves a margin; the queue's visibility timeout is six times this.
    // Each invocation takes up to 10 messages and sends them at once (functions/src/queues/send.ts).
    timeoutSeconds: 90,
  },
  dispatcher: {
    handler: 'schedules/dispatch.ts',
    // Signs in to look in a mailbox's Sent folder when a send's outcome is unknown.
    opens: ['mailbox-password', 'mailbox-oauth-refresh'],
    // Settling an unknown outcome looks in the mailbox's Sent folder.
    uses: ['mail'],
    enqueues: true,
    seals: ['mailbox-oauth-refresh'],
    timeoutSeconds: 60,
  },
  webhooks: {
    handler: 'http/webhooks.ts',
    seals: ['webhook-signing-secret'],
    routes: [
      { method: 'GET', path: '/v1/webhooks', operationId: 'listWebhooks' },
      { method: 'POST', path: '/v1/webhooks', operationId: 'createWebhook' },
      { method: 'DELETE', path: '/v1/webhooks/{id}', operationId: 'deleteWebhook' },
      { method: 'GET', path: '/v1/webhooks/{id}/deliveries', operationId: 'listWebhookDeliveries' },
    ],
  },
  webhookWorker: {
    handler: 'queues/webhooks.ts',
    consumes: 'webhooks',
    opens: ['webhook-signing-secret'],
    // Ten attempts at once per invocation, each given up after 10 s; the sweep reads at most 1,000 deliveries.
    timeoutSeconds: 60,
    // The least an event source allows: events are few next to sends, and a slow receiver must not take the account.
    consumerConcurrency: 2,
  },
  console: {
    handler: 'http/console.ts',
    // The page and its files hold no data: every API call the console makes carries the user's token.
    routes: [
      { method: 'GET', path: '/', public: true, operationId: 'getConsole' },
      { method: 'GET', path: '/console/{file}', public: true, operationId: 'getConsoleFile' },
    ],
    pageUploadsTo: 'uploads',
  },
  fallback: {
    handler: 'http/fallback.ts',
    // API Gateway's own 404 body would not be `{ error }`, so a function answers it.
    catchAll: true,
    // A removed route has nothing left to protect: it answers 410 with or without a token.
    routes: [
      { method: 'PUT', path: '/v1/instance-settings', public: true, operationId: 'updateInstanceSettings' },
      // The machine-readable description of the API (OpenAPI 3.1, version 1.0.0): public by design.
      { method: 'GET', path: '/v1/openapi.json', public: true, operationId: 'getOpenApiDocument' },
    ],
  },
} satisfies Record<string, FunctionDef>;

export type FunctionName = keyof typeof functions;

/** The function that answers what no route matches. */
export const catchAllFunction = Object.entries(functions).find(([, f]) => (f as FunctionDef).catchAll)![0] as FunctionName;

/** `METHOD /path` as API Gateway writes a route key. */
export const routeKey = (r: Pick<RouteDef, 'method' | 'path'>) => `${r.method} ${r.path}`;

export interface ResolvedRoute extends RouteDef {
  fn: FunctionName;
  key: string;
}

export function allRoutes(): ResolvedRoute[] {
  return Object.entries(functions).flatMap(([fn, def]) =>
    ((def as FunctionDef).routes ?? []).map((r) => ({ ...r, fn: fn as FunctionName, key: routeKey(r) })),
  );
}

const byKey = new Map(allRoutes().map((r) => [r.key, r]));

/** The route a key names; `undefined` for `$default` and unknown keys. */
export function findRoute(key: string): ResolvedRoute | undefined {
  return byKey.get(key);
}

/**
 * SQS queues. `send` is the delay queue the sender drains (SQS delays are at
 * most 15 minutes; longer waits stay in the table until a dispatcher moves them).
 */
export const queues = {
  send: { visibilityTimeoutSeconds: 540, maxReceiveCount: 5 },
  // Outbound webhooks' attempts: each message is one attempt, so a message the worker fails 5 times (the store down) goes to its DLQ.
  webhooks: { visibilityTimeoutSeconds: 360, maxReceiveCount: 5 },
} as const;

export type QueueName = keyof typeof queues;

/** S3 buckets. `uploads` holds CSV files until their import ends (a lifecycle rule removes any left after a day). */
export const buckets = {
  uploads: { expireDays: 1 },
} as const;

/** Scheduled functions: an EventBridge schedule on AWS, a timer locally. */
export interface ScheduleDef {
  fn: FunctionName;
  everyMinutes: number;
  /** Whether TIME_SCALE speeds it up locally (the hourly domain check is never scaled). */
  scaled: boolean;
}

export const schedules: Record<string, ScheduleDef> = {
  // Moves due jobs from the table to the delay queue, plans launching campaigns, recovers lost messages.
  dispatch: { fn: 'dispatcher', everyMinutes: 1, scaled: true },
  // Guardrail 10: every domain is checked every hour, in wall time (TIME_SCALE does not apply).
  domainCheck: { fn: 'domainCheck', everyMinutes: 60, scaled: false },
  // Reads the mailboxes due a look (every 5 minutes of engine time each): replies, bounce reports, complaints.
  poll: { fn: 'mailboxPoller', everyMinutes: 1, scaled: true },
  // Reads the seed inboxes of placement samples that are due a look, and finishes runs.
  placement: { fn: 'placementReader', everyMinutes: 1, scaled: true },
  // Takes over imports whose worker stopped (a restart, a timeout) and ends uploads that never came.
  imports: { fn: 'importWorker', everyMinutes: 1, scaled: false },
  // Queues outbound webhook deliveries that are due (first attempts, long retries, lost messages).
  webhooks: { fn: 'webhookWorker', everyMinutes: 1, scaled: true },
};
