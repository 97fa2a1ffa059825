import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { allRoutes, catchAllFunction, functions, type FunctionName, type ResolvedRoute } from '@outbound/functions/manifest';
import { hostAllowed } from './net.ts';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway refuses payloads over 10 MB; locally a little more, so a 10 MB CSV in its multipart envelope fits. */
const MAX_BODY_BYTES = 11 * 1024 * 1024;

interface Matcher {
  route: ResolvedRoute;
  regex: RegExp;
  params: string[];
}

/** Route templates as regexes; literal segments win over parameters, as on API Gateway. */
function buildMatchers(): Matcher[] {
  return allRoutes()
    .map((route) => {
      const params: string[] = [];
      const pattern = route.path
        .split('/')
        .map((seg) => {
          const m = /^\{(\w+)\}$/.exec(seg);
          if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          params.push(m[1]!);
          return '([^/]+)';
        })
        .join('/');
      return { route, regex: new RegExp(`^${pattern}$`), params };
    })
    .sort((a, b) => a.params.length - b.params.length);
}

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|[\w.+-]+\+json)|text\/)/i;

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function toEvent(
  req: IncomingMessage,
  body: Buffer,
  route: ResolvedRoute | undefined,
  pathParameters: Record<string, string>,
): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const isText = !body.length || TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const now = new Date();
  const requestId = randomUUID();
  const routeKey = route?.key ?? '$default';
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: headers.cookie?.split(/;\s*/),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? (isText ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !isText,
  };
}

export function lambdaContext(fn: FunctionName, requestId: string, timeoutMs: number): Context {
  const started = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `outbound-${fn}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:outbound-${fn}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/outbound-${fn}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
    done() {},
    fail() {},
    succeed() {},
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2, requestId: string): void {
  const headers: Record<string, string | string[]> = { 'x-request-id': requestId };
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  headers['content-length'] = String(body.length);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

export interface HttpAdapter {
  server: Server;
  /** Requests being answered right now. */
  inFlight(): number;
  /** Stops taking requests and waits for those in flight. */
  drain(timeoutMs?: number): Promise<void>;
}

/** A path segment as API Gateway passes it: percent-decoded, or as it came when its escapes are malformed (never a throw). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Serves the manifest's routes over node:http by building API Gateway HTTP API
 * (payload 2.0) events and calling the same handlers Lambda runs.
 */
export function createHttpAdapter(
  load: (fn: FunctionName) => Promise<LambdaHandler>,
  /** Answers requests that are not the API's (the local stand-in for S3's signed uploads); true when it did. */
  beside?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
  /** Host names answered besides IP addresses and localhost (see hostAllowed). */
  opts: { hostNames?: readonly string[] } = {},
): HttpAdapter {
  const matchers = buildMatchers();
  let inFlight = 0;
  let idle: (() => void) | undefined;

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    inFlight++;
    try {
      // A browser on a DNS-rebinding page reaches 127.0.0.1 under the attacker's name: refused before anything is read.
      if (!hostAllowed(req.headers.host, opts.hostNames)) {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: 'This engine answers requests addressed to its IP address, localhost or its PUBLIC_BASE_URL host only.',
          }),
        );
        return;
      }
      if (beside && (await beside(req, res))) return;
      const url = new URL(req.url ?? '/', 'http://local');
      let route: ResolvedRoute | undefined;
      let pathParameters: Record<string, string> = {};
      for (const m of matchers) {
        if (m.route.method !== req.method) continue;
        const hit = m.regex.exec(url.pathname);
        if (!hit) continue;
        route = m.route;
        pathParameters = Object.fromEntries(m.params.map((p, i) => [p, decodeSegment(hit[i + 1]!)]));
        break;
      }
      const body = await readBody(req);
      if (body === 'too-large') {
        send(
          res,
          {
            statusCode: 413,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ error: 'The request body is larger than 10 MB.' }),
          },
          randomUUID(),
        );
        return;
      }
      const event = toEvent(req, body, route, pathParameters);
      const fn = route?.fn ?? catchAllFunction;
      const handler = await load(fn);
      const timeoutMs = ((functions[fn] as { timeoutSeconds?: number }).timeoutSeconds ?? 29) * 1000;
      const result = await handler(event, lambdaContext(fn, event.requestContext.requestId, timeoutMs));
      send(res, result, event.requestContext.requestId);
    } catch (err) {
      // Handlers answer their own errors; reaching here is a bug in the adapter itself.
      console.error('local HTTP adapter failed', err);
      if (!res.headersSent)
        send(
          res,
          {
            statusCode: 500,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ error: 'Something went wrong on our side.' }),
          },
          randomUUID(),
        );
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
    }
  };
  // Node does nothing with a listener's promise; answer() turns every failure into a 500 itself, so it never rejects.
  const server = createServer((req, res) => void answer(req, res));

  return {
    server,
    inFlight: () => inFlight,
    async drain(timeoutMs = 30_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([new Promise<void>((r) => (idle = r)), new Promise((r) => setTimeout(r, timeoutMs))]);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
