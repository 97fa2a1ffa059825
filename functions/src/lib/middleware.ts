import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { authenticate } from '@outbound/core/auth/index';
import type { Deps } from '@outbound/core/deps';
import { BadJsonError, EngineError, NotFoundError, RetryLaterError, UnsupportedMediaTypeError } from '@outbound/core/errors';
import { hit } from '@outbound/core/ratelimit/index';
import { findRoute, rateLimits, type ResolvedRoute } from '../manifest.ts';
import { getDeps, inInvocation, type Kit } from './deps.ts';
import { statusOf } from './http-errors.ts';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

export interface HttpRequest {
  deps: Deps;
  route: ResolvedRoute | undefined;
  /** Parsed JSON for JSON routes (undefined when empty); the raw string otherwise. */
  body: unknown;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  ip: string;
  /** The signed-in user on protected routes. */
  user?: { email: string };
  /** A JSON route's body as it came ('' for other routes). */
  rawBody: string;
  event: Event;
}

export interface HttpResult {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as text/html instead of JSON. */
  html?: string;
  /** Sent as it is, with the content type `headers` give (the console's script and stylesheet). */
  text?: string;
  headers?: Record<string, string>;
}

export type RouteImpl = (req: HttpRequest) => Promise<HttpResult>;

interface Internal extends Record<string, unknown> {
  started: number;
}

/** Path ids (and domain names) longer than this name nothing the engine has. */
const MAX_PATH_PARAM_BYTES = 512;

/** The signed-in user of each event, set by the bearer check for the handler to read. */
const signedIn = new WeakMap<Event, { email: string }>();

type Req = middy.Request<Event, Result, Error, Context, Internal>;

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Result => ({
  statusCode: status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: body === undefined ? '' : JSON.stringify(body),
});

function toResult(out: HttpResult): Result {
  if (out.html !== undefined) {
    return { statusCode: out.status, headers: { 'content-type': 'text/html; charset=utf-8', ...out.headers }, body: out.html };
  }
  if (out.text !== undefined) return { statusCode: out.status, headers: out.headers ?? {}, body: out.text };
  if (out.status === 204) return { statusCode: 204, headers: out.headers ?? {}, body: '' };
  return json(out.status, out.body, out.headers);
}

/** Errors a user may see keep their sentence; anything else is a generic 500 and goes to the log. */
function errorResult(err: unknown, deps: Deps, req: Req): Result {
  if (err instanceof EngineError) {
    const status = statusOf[err.code];
    if (status < 500) {
      const headers: Record<string, string> = {};
      if (err instanceof RetryLaterError) headers['retry-after'] = String(Math.max(1, Math.ceil(err.retryAfterMs / 1000)));
      return json(status, { error: err.message, ...err.extra }, headers);
    }
  }
  deps.log.error('request failed', { requestId: req.event.requestContext?.requestId, route: req.event.routeKey, err });
  deps.metrics.count('ApiErrors');
  return json(500, { error: 'Something went wrong on our side. The details are in the service log.' });
}

/** API Gateway's request id on every answer, so a user's report names the log lines of their request. */
function withRequestId(req: Req): void {
  const id = req.event.requestContext?.requestId;
  if (req.response && id) req.response.headers = { ...req.response.headers, 'x-request-id': id };
}

/**
 * The engine's one middleware: per-minute limits and the bearer check, both
 * read from the manifest's route, then one JSON log line when the answer is
 * ready, and the one error mapping (a shown sentence under 500, a logged
 * detail above it).
 */
function engine(): middy.MiddlewareObj<Event, Result, Error, Context, Internal> {
  const log = (req: Req) => {
    const deps = getDeps();
    deps.log.info('request', {
      method: req.event.requestContext?.http?.method,
      route: req.event.routeKey,
      path: req.event.rawPath,
      status: req.response?.statusCode,
      ms: Date.now() - req.internal.started,
      requestId: req.event.requestContext?.requestId,
    });
  };
  return {
    before: async (req) => {
      req.internal.started = Date.now();
      const deps = getDeps();
      const route = findRoute(req.event.routeKey);
      // Ids are short; a long one names nothing (and the table would refuse it as a key, a fault instead of a 404).
      for (const [name, value] of Object.entries(req.event.pathParameters ?? {})) {
        // An unsubscribe token is checked by its signature and answered with the page, whatever its length.
        if (name !== 'token' && Buffer.byteLength(value ?? '') > MAX_PATH_PARAM_BYTES)
          throw new NotFoundError(`There is no ${name} that long: ids are at most ${MAX_PATH_PARAM_BYTES} bytes.`);
      }
      // Before the rate limit: a request refused for its content type is no attempt (a web page's text/plain post to the
      // login must not spend the owner's attempts), and it costs no store request.
      if (route?.jsonOnly) {
        const type = String(req.event.headers?.['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        if (type !== 'application/json')
          throw new UnsupportedMediaTypeError('This route takes a JSON body only: send it with Content-Type: application/json.');
      }
      if (deps.config.rateLimits) {
        const bucket = route?.rate ?? 'global';
        await hit(deps, bucket, req.event.requestContext.http.sourceIp, rateLimits[bucket]);
      }
      if (route && !route.public) {
        signedIn.set(req.event, await authenticate(deps, req.event.headers?.authorization));
      }
    },
    after: async (req) => {
      withRequestId(req);
      log(req);
    },
    onError: async (req) => {
      req.response = errorResult(req.error, getDeps(), req);
      withRequestId(req);
      log(req);
    },
  };
}

// The option exists in the code but not yet in the package's types.
/** The JSON body as it came, before parsing: a webhook signature covers these bytes. */
const rawBodies = new WeakMap<Event, string>();

const jsonParser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);

/** JSON routes parse their body whatever the content type (curl -d sends a form type); others keep the raw text. */
const jsonBody: middy.MiddlewareObj<Event, Result, Error, Context, Internal> = {
  before: async (req) => {
    const route = findRoute(req.event.routeKey);
    const kind = route?.body ?? (['POST', 'PUT', 'PATCH'].includes(route?.method ?? '') ? 'json' : 'none');
    // A JSON-only route's content type was checked before its rate limit (engine()).
    if (kind !== 'json' || !req.event.body) return;
    rawBodies.set(req.event, req.event.isBase64Encoded ? Buffer.from(req.event.body, 'base64').toString('utf8') : req.event.body);
    try {
      await jsonParser.before!(req as never);
    } catch {
      // The parser's own error names its package, not the problem: the client gets a sentence.
      throw new BadJsonError();
    }
  },
};

/**
 * One Lambda per endpoint group: `routes` maps API Gateway route keys
 * (`POST /v1/auth/login`) to their implementation. A key with no
 * implementation answers 404. `kits` are the heavy adapters the group's
 * routes use (functions/src/lib/kits): its bundle carries those and no others.
 */
export function httpHandler(routes: Record<string, RouteImpl>, kits: readonly Kit[] = []) {
  const handler = middy<Event, Result, Error, Context, Internal>()
    .use(engine())
    .use(jsonBody)
    .handler(async (event) => {
      const impl = routes[event.routeKey];
      if (!impl) throw new NotFoundError(`There is no ${event.requestContext.http.method} ${event.rawPath} in this API.`);
      const deps = getDeps();
      const out = await impl({
        deps,
        route: findRoute(event.routeKey),
        body: event.body as unknown,
        params: (event.pathParameters ?? {}) as Record<string, string>,
        query: (event.queryStringParameters ?? {}) as Record<string, string>,
        headers: (event.headers ?? {}) as Record<string, string>,
        ip: event.requestContext.http.sourceIp,
        user: signedIn.get(event),
        rawBody: rawBodies.get(event) ?? '',
        event,
      });
      return toResult(out);
    });
  // The keys it implements, so a test can hold the manifest and the handlers to each other.
  return Object.assign((event: Event, context: Context) => inInvocation(context, () => handler(event, context), kits), {
    routeKeys: Object.keys(routes),
    kits: kits.map((k) => k.name),
  });
}
