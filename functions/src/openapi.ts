/**
 * The machine-readable description of the API: an OpenAPI 3.1 document,
 * version 1.0.0, built from the manifest's routes, the zod schemas the verbs
 * validate with (request bodies and queries) and core's view schemas (the
 * answers; functions/src/openapi-schemas.ts), so it cannot list a route the
 * engine does not serve, a field it does not take, or an answer's shape core
 * does not make. Served without a token at GET /v1/openapi.json; docs/api.md
 * is the prose.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { ApiKey } from '@outbound/core/ai-keys/index';
import { AiKeyStatusView } from '@outbound/core/ai-keys/ai-keys.view';
import { LoginInput } from '@outbound/core/auth/index';
import { CreateCampaign, UpdateCampaign } from '@outbound/core/campaign/campaign.schema';
import {
  CampaignRowView,
  CampaignView,
  LaunchCheckView,
  LaunchedCampaignView,
  VariantFiguresView,
} from '@outbound/core/campaign/campaign.view';
import { DomainCheckView, PublicDomainCheckView } from '@outbound/core/deliverability/check.view';
import { CreateDomain, UpdateDomain } from '@outbound/core/domain/domain.schema';
import { DomainView } from '@outbound/core/domain/domain.view';
import { ListQuery as ReplyListQuery, UpdateReply } from '@outbound/core/inbound/index';
import { ReplyPageView, ReplyView } from '@outbound/core/inbound/reply.view';
import { EraseInput, ListQuery as LeadListQuery } from '@outbound/core/lead/index';
import { LeadInput } from '@outbound/core/lead/lead.schema';
import { LeadPageView, LeadView } from '@outbound/core/lead/lead.view';
import { NextSendView } from '@outbound/core/sending/next-send.view';
import { AnswerInput, ConversationQuery } from '@outbound/core/conversation/index';
import { AnswerView, ConversationView } from '@outbound/core/conversation/conversation.view';
import { UploadInput } from '@outbound/core/lead/import/index';
import { ImportResultView, UploadTicketView } from '@outbound/core/lead/import/view';
import { CreateMailbox, UpdateMailbox } from '@outbound/core/mailbox/mailbox.schema';
import { MailboxView } from '@outbound/core/mailbox/mailbox.view';
import { AuthorizeQuery, CallbackQuery } from '@outbound/core/oauth/oauth.schema';
import { StartSample } from '@outbound/core/placement/placement.schema';
import { PlacementRunView, PlacementSampleView } from '@outbound/core/placement/placement.view';
import { PauseInput } from '@outbound/core/queue/index';
import { QueueStatusView } from '@outbound/core/queue/queue.view';
import { CreateSeed } from '@outbound/core/seed/seed.schema';
import { SeedView } from '@outbound/core/seed/seed.view';
import { allRoutes, type ResolvedRoute } from './manifest.ts';
import { EXAMPLES } from './openapi-examples.ts';
import { webhookEvents, webhookRoutes } from './openapi-webhooks.ts';
import {
  componentRef,
  componentSchemas,
  ErrorView,
  requestSchema,
  responseSchema,
  type ComponentName,
  type Json,
} from './openapi-schemas.ts';

export const API_VERSION = '1.0.0';

const str = { type: 'string' };
const int = { type: 'integer' };

interface RouteDoc {
  summary: string;
  body?: z.ZodType | 'multipart' | 'form';
  query?: z.ZodType;
  /** The success status and its body (a view schema, `html`, or nothing). */
  ok: [number, z.ZodType | 'html' | 'none' | 'redirect' | 'asset'];
  errors?: number[];
  /** A refusal whose body says more than `{ error }`: the status and the component it follows. */
  errorBodies?: Record<number, ComponentName>;
  /** Request headers the route reads, each optional. */
  headers?: Record<string, string>;
}

/** A JSON body, with its example when there is one (docs/api.md's, from openapi-examples.ts). */
const jsonBody = (s: Json, example?: unknown) => ({
  content: { 'application/json': { schema: s, ...(example === undefined ? {} : { example }) } },
});
const html = { content: { 'text/html': { schema: str } } };
const asset = { content: { 'text/javascript': { schema: str }, 'text/css': { schema: str }, 'image/svg+xml': { schema: str } } };

/** Every route of the manifest, described; a test holds the two together. */
const ROUTES: Record<string, RouteDoc> = {
  'POST /v1/auth/login': {
    summary: 'Sign in: a bearer token for 12 hours',
    body: LoginInput,
    ok: [200, z.object({ token: z.string() })],
    errors: [401, 422, 429],
  },
  'GET /v1/mailboxes': { summary: 'List mailboxes (credentials never included)', ok: [200, z.array(MailboxView)] },
  'POST /v1/mailboxes': {
    summary: 'Connect a mailbox (the sign-in check runs first)',
    body: CreateMailbox,
    ok: [201, MailboxView],
    errors: [409, 422],
  },
  'PATCH /v1/mailboxes/{id}': {
    summary: 'Change status, daily cap or sender name',
    body: UpdateMailbox,
    ok: [200, MailboxView],
    errors: [404, 422],
  },
  'DELETE /v1/mailboxes/{id}': { summary: 'Delete a mailbox (its leads’ sequences end)', ok: [204, 'none'], errors: [404] },
  'GET /v1/oauth/{provider}/authorize': {
    summary: 'Start connecting a Google or Microsoft mailbox: 302 to the provider (409 for a mailbox connected and sending)',
    query: AuthorizeQuery,
    ok: [302, 'redirect'],
    errors: [404, 409, 422],
  },
  'GET /v1/oauth/{provider}/callback': {
    summary: 'Where the provider sends the browser back (verified by the signed state)',
    query: CallbackQuery,
    ok: [200, 'html'],
    errors: [400],
  },
  'GET /v1/domains': { summary: 'List sending domains', ok: [200, z.array(DomainView)] },
  'POST /v1/domains': { summary: 'Add a sending domain', body: CreateDomain, ok: [201, DomainView], errors: [409, 422] },
  'PATCH /v1/domains/{id}': {
    summary: 'Change a domain (clearing an address in use needs confirm)',
    body: UpdateDomain,
    ok: [200, DomainView],
    errors: [404, 409, 422],
    errorBodies: { 409: 'AddressInUse' },
  },
  'POST /v1/domains/{id}/check': {
    summary: 'Check SPF, DKIM, DMARC and blocklists of a domain (by name)',
    query: z.object({ selector: z.string().optional() }),
    ok: [200, DomainCheckView],
    errors: [404, 422],
  },
  'GET /public/domain-check': {
    summary: 'The public domain check: six fields',
    query: z.object({ domain: z.string() }),
    ok: [200, PublicDomainCheckView],
    errors: [422, 429],
  },
  'GET /v1/seed-inboxes': { summary: 'List seed inboxes (passwords never included)', ok: [200, z.array(SeedView)] },
  'POST /v1/seed-inboxes': {
    summary: 'Add a seed inbox (IMAP sign-in checked)',
    body: CreateSeed,
    ok: [201, SeedView],
    errors: [409, 422],
  },
  'DELETE /v1/seed-inboxes/{id}': { summary: 'Remove a seed inbox', ok: [204, 'none'], errors: [404] },
  'GET /v1/domains/{id}/placement-sample': {
    summary: 'The latest seed-inbox placement rollup of a domain',
    ok: [200, PlacementSampleView],
    errors: [404],
  },
  'POST /v1/domains/{id}/placement-sample': {
    summary: 'Start a placement run',
    body: StartSample,
    ok: [202, PlacementRunView],
    errors: [404, 409, 422],
  },
  'GET /v1/domains/{id}/placement-runs': {
    summary: 'Placement runs of a domain, newest first',
    ok: [200, z.array(PlacementRunView)],
    errors: [404],
  },
  'GET /v1/leads': { summary: 'List leads', query: LeadListQuery, ok: [200, LeadPageView], errors: [422] },
  'POST /v1/leads': {
    summary: 'Add one lead (409 when suppressed or a duplicate)',
    body: LeadInput,
    ok: [201, LeadView],
    errors: [409, 422],
  },
  'POST /v1/leads/webhook': {
    summary:
      'Add a lead from outside (no token; application/json only; X-Outbound-Webhook-Token, X-Outbound-Signature or a Standard Webhooks signature when the campaign has a secret)',
    body: LeadInput,
    ok: [200, z.object({ accepted: z.literal(true) })],
    errors: [401, 415, 422, 429],
  },
  'POST /v1/leads/import': {
    summary: 'Import a CSV (multipart: campaignId, file); answers within 20 s, COMPLETED or RUNNING',
    body: 'multipart',
    ok: [200, ImportResultView],
    errors: [413, 422, 429],
  },
  'POST /v1/leads/imports': {
    summary: 'Start an import whose file goes to a signed upload link (files over 4 MB on AWS)',
    body: UploadInput,
    ok: [201, UploadTicketView],
    errors: [413, 422, 429],
  },
  'GET /v1/leads/imports/{importId}': { summary: 'An import’s progress and counts', ok: [200, ImportResultView], errors: [404] },
  'GET /v1/leads/{id}/next-send': {
    summary: 'When the lead’s next email may start, and every rule holding it now',
    ok: [200, NextSendView],
    errors: [404],
  },
  'GET /v1/leads/{id}/conversation': {
    summary:
      'The lead’s conversation, oldest first: every email sent to it and every reply, with their text (pages of `limit`, at most 200, and at most about 4 MB)',
    query: ConversationQuery,
    ok: [200, ConversationView],
    errors: [404, 422],
  },
  'POST /v1/leads/{id}/messages': {
    summary:
      'Answer the lead from its pinned mailbox, in its thread, through the one send path (Idempotency-Key header: a repeat answers the first 202 and sends nothing more)',
    body: AnswerInput,
    ok: [202, AnswerView],
    errors: [404, 409, 422],
    headers: {
      'Idempotency-Key':
        'Any string of 1 to 255 characters: a repeat for the same lead answers the first request’s 202 and sends nothing more',
    },
  },
  'POST /v1/leads/{id}/suppress': { summary: 'Suppress a lead’s address everywhere', ok: [200, LeadView], errors: [404] },
  'DELETE /v1/leads/erase': {
    summary: 'Erase an address from every campaign (it stays suppressed)',
    body: EraseInput,
    ok: [200, z.object({ erased: z.int() })],
    errors: [422],
  },
  'DELETE /v1/leads/{id}': { summary: 'Delete one lead row', ok: [204, 'none'], errors: [404] },
  'GET /v1/campaigns': { summary: 'List campaigns with senders, launch state, progress and counters', ok: [200, z.array(CampaignRowView)] },
  'POST /v1/campaigns': { summary: 'Create a campaign (DRAFT)', body: CreateCampaign, ok: [201, CampaignView], errors: [422] },
  'GET /v1/campaigns/{id}': { summary: 'One campaign', ok: [200, CampaignView], errors: [404] },
  'PATCH /v1/campaigns/{id}': {
    summary: 'Change a campaign (never its status; variants only until a first email used them: 409)',
    body: UpdateCampaign,
    ok: [200, CampaignView],
    errors: [404, 409, 422],
  },
  'DELETE /v1/campaigns/{id}': { summary: 'Archive a campaign', ok: [200, CampaignView], errors: [404] },
  'GET /v1/campaigns/{id}/launch-check': {
    summary: 'What stands between the campaign and its launch',
    ok: [200, LaunchCheckView],
    errors: [404],
  },
  'GET /v1/campaigns/{id}/variants': {
    summary:
      'Figures per variant of the first email (per lead: sent, replied, positive, bounced, unsubscribed), the winner once named, and the test',
    ok: [200, VariantFiguresView],
    errors: [404],
  },
  'POST /v1/campaigns/{id}/launch': {
    summary: 'Launch (422 with every problem at once)',
    ok: [200, LaunchedCampaignView],
    errors: [404, 422],
    errorBodies: { 422: 'LaunchRefused' },
  },
  'POST /v1/campaigns/{id}/webhook-secret': {
    summary: 'Make (or replace) the campaign’s webhook secret, shown this once; the webhook then asks for it',
    ok: [201, z.object({ campaignId: z.string(), webhookSecret: z.string() })],
    errors: [404],
  },
  'DELETE /v1/campaigns/{id}/webhook-secret': {
    summary: 'Remove the webhook secret (the webhook takes any request again)',
    ok: [204, 'none'],
    errors: [404],
  },
  'POST /v1/campaigns/{id}/pause': { summary: 'Pause a campaign', ok: [200, CampaignView], errors: [404] },
  'GET /v1/replies': {
    summary: 'Replies read from the mailboxes, newest first; filters by status, unread, campaign and mailbox give full pages',
    query: ReplyListQuery,
    ok: [200, ReplyPageView],
    errors: [422],
  },
  'PATCH /v1/replies/{id}': {
    summary: 'Set a reply’s status (a person’s is never changed by the rules or the AI), mark it read, snooze it',
    body: UpdateReply,
    ok: [200, ReplyView],
    errors: [404, 422],
  },
  'GET /v1/ai-keys': { summary: 'Which AI providers have a key', ok: [200, z.array(AiKeyStatusView)] },
  'PUT /v1/ai-keys/{provider}': { summary: 'Store an AI provider key (never returned)', body: ApiKey, ok: [204, 'none'], errors: [422] },
  'DELETE /v1/ai-keys/{provider}': { summary: 'Forget an AI provider key', ok: [204, 'none'], errors: [422] },
  'GET /unsubscribe/{token}': { summary: 'The built-in unsubscribe page (opening it changes nothing)', ok: [200, 'html'], errors: [400] },
  'POST /unsubscribe/{token}': {
    summary: 'Unsubscribe (the page’s button, or RFC 8058 one-click)',
    body: 'form',
    ok: [200, 'html'],
    errors: [400],
  },
  'GET /v1/queue/status': { summary: 'Queue counts, pause state, the next jobs and the throttling', ok: [200, QueueStatusView] },
  'POST /v1/queue/pause': { summary: 'Pause or resume the whole queue', body: PauseInput, ok: [200, QueueStatusView], errors: [422] },
  'PUT /v1/instance-settings': { summary: 'Removed: the footer address belongs to each sending domain', ok: [410, ErrorView] },
  'GET /': { summary: 'The operator console (a page that signs in and calls this API; it holds no data itself)', ok: [200, 'html'] },
  'GET /console/{file}': { summary: 'The console’s script and stylesheet (named by their content, cached for good)', ok: [200, 'asset'] },
  'GET /v1/openapi.json': { summary: 'This document', ok: [200, z.record(z.string(), z.unknown())] },
  ...webhookRoutes,
};

export const documentedRoutes = () => Object.keys(ROUTES);

/** The refusals every route shares, each once in components.responses; an operation points at the ones it can answer. */
const SHARED: Record<number, string> = {
  400: 'BadJson',
  401: 'Unauthorized',
  404: 'NotFound',
  409: 'Conflict',
  413: 'TooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'RateLimited',
  500: 'ServerError',
};

const errorResponse = (description: string, schemaName: ComponentName = 'Error', headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  ...jsonBody(componentRef(schemaName)),
});

const responses: Record<string, Json> = {
  BadJson: errorResponse('The body is not JSON (a route that reads JSON reads it whatever the content type says)'),
  Unauthorized: errorResponse('No bearer token, or one that is expired or not valid'),
  NotFound: errorResponse(
    'Nothing has this id (or an id longer than 512 bytes); also the answer to any path or method the API does not have',
  ),
  Conflict: errorResponse('The request contradicts what is stored (a duplicate, a suppressed address, a value in use)'),
  TooLarge: errorResponse(
    'The request body is over 10 MB (any route), or a file over what the route takes. On AWS, API Gateway refuses a body over 10 MB itself, with a body of its own',
  ),
  UnsupportedMediaType: errorResponse('The route takes Content-Type: application/json only'),
  Invalid: errorResponse('The request is well-formed but a value is wrong; the sentence names the field'),
  RateLimited: errorResponse(
    'Too many requests this minute from this address (or a locked sign-in): retry after retryAfterMs',
    'RetryLater',
    {
      'retry-after': { description: 'Seconds to wait', schema: int },
    },
  ),
  ServerError: errorResponse('A fault on the engine’s side; the sentence is generic and the details are in the service log'),
};

/**
 * What any request to a route may be answered, whatever the route does: the per-minute limit (every route
 * counts against one), a body over 10 MB, the catch-all 404 (an id too long), a fault; a JSON route refuses a
 * body that is not JSON, a protected route a missing token, a JSON-only route another content type.
 */
function generic(route: ResolvedRoute): number[] {
  const kind = route.body ?? (['POST', 'PUT', 'PATCH'].includes(route.method) ? 'json' : 'none');
  return [
    ...(kind === 'json' ? [400] : []),
    ...(route.public ? [] : [401]),
    404,
    ...(route.method === 'GET' ? [] : [413]),
    ...(route.jsonOnly ? [415] : []),
    429,
    500,
  ];
}

function operation(route: ResolvedRoute, d: RouteDoc): Json {
  const params: Json[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: str }));
  for (const [name, description] of Object.entries(d.headers ?? {}))
    params.push({ name, in: 'header', required: false, description, schema: { type: 'string', minLength: 1, maxLength: 255 } });
  if (d.query) {
    const q = requestSchema(d.query) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, s] of Object.entries(q.properties ?? {}))
      params.push({ name, in: 'query', required: (q.required ?? []).includes(name), schema: s as typeof str });
  }
  const [status, body] = d.ok;
  const examples = EXAMPLES[route.operationId] ?? {};
  const success =
    body === 'none'
      ? { description: 'Done' }
      : body === 'redirect'
        ? { description: 'To the provider’s consent page', headers: { location: { schema: str } } }
        : body === 'html'
          ? { description: 'An HTML page', ...html }
          : body === 'asset'
            ? { description: 'A static file of the console', ...asset }
            : { description: d.summary, ...jsonBody(responseSchema(body), examples.response) };
  const errors = Object.fromEntries(
    [...new Set([...(d.errors ?? []), ...generic(route)])]
      .filter((code) => code !== status)
      .sort((a, b) => a - b)
      .map((code) => [
        String(code),
        code === 400 && d.ok[1] === 'html'
          ? { description: 'An HTML page saying why, in plain words', ...html }
          : d.errorBodies?.[code]
            ? {
                description: 'A sentence a user can read, and what it is about',
                ...jsonBody(componentRef(d.errorBodies[code]!), examples.errors?.[code]),
              }
            : SHARED[code]
              ? { $ref: `#/components/responses/${SHARED[code]}` }
              : { description: 'A sentence a user can read', ...jsonBody(componentRef('Error')) },
      ]),
  );
  return {
    summary: d.summary,
    operationId: route.operationId,
    tags: [route.fn],
    // Public routes take no token (an empty requirement overrides the document's default).
    ...(route.public ? { security: [] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(d.body === 'multipart'
      ? {
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  properties: { campaignId: str, file: { type: 'string', contentMediaType: 'text/csv' } },
                  required: ['campaignId', 'file'],
                },
              },
            },
          },
        }
      : d.body === 'form'
        ? {
            requestBody: {
              required: false,
              content: {
                'application/x-www-form-urlencoded': {
                  schema: { type: 'object', properties: { 'List-Unsubscribe': { const: 'One-Click' } }, required: [] },
                },
              },
            },
          }
        : d.body
          ? { requestBody: { required: true, ...jsonBody(requestSchema(d.body), examples.request) } }
          : {}),
    responses: { [String(status)]: success, ...errors },
  };
}

/** The address of docs/openapi.json: a placeholder for the installation's own (PUBLIC_BASE_URL), local by default. */
export const PLACEHOLDER_SERVER: Json = {
  url: '{baseUrl}',
  variables: {
    baseUrl: {
      default: 'http://localhost:3000',
      description: 'Your installation’s address: PUBLIC_BASE_URL, or the API Gateway URL `npx sst deploy` prints',
    },
  },
};

/** The document as docs/openapi.json holds it: two-space JSON and a final newline, so the file is stable and diffs read well. */
export const openApiFileText = (): string => `${JSON.stringify(openApiDocument(PLACEHOLDER_SERVER), null, 2)}\n`;

/** Writes docs/openapi.json (or `path`) from this generator; `npm run build` and functions/src/openapi-write.ts call it. */
export function writeOpenApiFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, openApiFileText());
}

/** The whole document; `server` is the installation's own address when it has one (or a server object with variables). */
export function openApiDocument(server?: string | Json): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of allRoutes()) {
    const d = ROUTES[route.key];
    if (!d) throw new Error(`openapi: the route ${route.key} is not described`);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, d);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Outbound',
      version: API_VERSION,
      description:
        'A self-hosted outbound email engine. Errors are `{ error }` with a sentence a user can read (some add fields). ' +
        'A method and path the API does not have answers 404 `{ error }` (components.responses.NotFound), and like any route 413 for a body over 10 MB, 429 past the per-minute limit and 500 on a fault. ' +
        'The prose reference, with an example of every route, is docs/api.md in the repository.',
    },
    ...(server ? { servers: [typeof server === 'string' ? { url: server } : server] } : {}),
    security: [{ bearer: [] }],
    paths,
    webhooks: webhookEvents(),
    components: {
      schemas: componentSchemas(),
      responses,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
