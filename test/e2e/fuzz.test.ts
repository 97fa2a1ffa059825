import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '@outbound/local/dynamo-local';
import { allRoutes, type ResolvedRoute } from '@outbound/functions/manifest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress } from '../helpers/fixtures.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

/**
 * Property-based requests to every route of the manifest through the HTTP
 * adapter: odd path ids, query strings and bodies (malformed JSON, wrong
 * types, huge and unicode strings, injection strings, formula prefixes).
 * Never a 5xx; every refusal a `{ error }` sentence with a status of the
 * contract; a refused write stores nothing. Bounded runs, seeded per route.
 */

const tableName = `t-fuzz-${randomUUID()}`;
let engine: TestEngine;
let dynamo: DynamoDBClient;
let ids: Record<string, string> = {};

beforeAll(async () => {
  engine = await startTestEngine({ tableName });
  await engine.api.login();
  dynamo = localDynamoClient(inject('dynamoEndpoint'), inject('dynamoCredentials'));
  await domainWithAddress(engine.api, 'fuzz.example');
  const c = await campaign(engine.api);
  ids = { id: c.id, domain: 'fuzz.example', provider: 'google', importId: '01NOSUCHIMPORT000000000000', token: 'x.y.z' };
});
afterAll(async () => {
  dynamo?.destroy();
  await engine?.stop();
});

/** Items of the table, less the ones a refused request may write by design (failed-login counts, rate windows). */
async function storedCount(): Promise<number> {
  let n = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await dynamo.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ProjectionExpression: 'pk' }));
    n += (out.Items ?? []).filter((i) => !/^(LOGIN#|RATE#)/.test(i.pk?.S ?? '')).length;
    start = out.LastEvaluatedKey;
  } while (start);
  return n;
}

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '../../etc/passwd',
    '%',
    '%zz',
    '%00',
    '=cmd|calc',
    '\u0000\u202e',
    '__proto__',
    'constructor',
    ' \t=SUM(A1)',
    '＝1+1',
    '{{email}}',
    '\r\n\r\nX: y',
  ),
  // Long, but within what an HTTP server takes in a request line (node answers 431 past 16 KB of headers, API Gateway sooner).
  fc.string({ minLength: 1000, maxLength: 1500 }),
);
/** Bodies may be far larger than a URL. */
const huge = fc.string({ minLength: 5000, maxLength: 200_000 });

const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom(
      'campaignId',
      'email',
      'name',
      'firstName',
      'customFields',
      'steps',
      'domainName',
      'password',
      'paused',
      'bytes',
      'limit',
    ),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  fc.record({ campaignId: nasty, email: nasty, customFields: fc.dictionary(nasty, nasty, { maxKeys: 5 }) }),
);

type Request = { segments: Record<string, string>; query: Record<string, string>; body: { text: string; type: string } | undefined };

const requestFor = (route: ResolvedRoute): fc.Arbitrary<Request> => {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return fc.record({
    segments: fc.record(Object.fromEntries(names.map((n) => [n, fc.oneof(fc.constant(ids[n] ?? ids.id!), nasty)]))) as fc.Arbitrary<
      Record<string, string>
    >,
    query: fc.dictionary(fc.constantFrom('limit', 'cursor', 'campaignId', 'domain', 'selector', 'code', 'state', 'type', 'x'), nasty, {
      maxKeys: 2,
    }),
    body: fc.option(
      fc.oneof(
        jsonBody.map((v) => ({ text: JSON.stringify(v), type: 'application/json' })),
        nasty.map((t) => ({ text: t, type: 'application/json' })),
        huge.map((t) => ({
          text: JSON.stringify({ campaignId: t, email: t, name: t, customFields: { [t.slice(0, 200)]: t } }),
          type: 'application/json',
        })),
        nasty.map((t) => ({ text: t, type: 'text/plain' })),
        nasty.map((t) => ({
          text: `--b\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n\uFEFFemail,first name\r\n${t},=1+1\r\n--b--\r\n`,
          type: 'multipart/form-data; boundary=b',
        })),
      ),
      { nil: undefined },
    ),
  });
};

// The routes that answer HTML pages (a browser lands on them): their refusals are pages, not JSON.
const HTML = new Set([
  'GET /v1/oauth/{provider}/callback',
  'GET /unsubscribe/{token}',
  'POST /unsubscribe/{token}',
  'GET /v1/oauth/{provider}/authorize',
]);
const CONTRACT = new Set([200, 201, 202, 204, 302, 400, 401, 403, 404, 409, 410, 413, 415, 422, 423, 429]);

describe('every route under odd input', { timeout: 240_000 }, () => {
  it('never answers 5xx, refuses with { error } and a contract status, and a refused write stores nothing', async () => {
    const failures: string[] = [];
    for (const [i, route] of allRoutes().entries()) {
      await fc
        .assert(
          fc.asyncProperty(requestFor(route), async (req) => {
            const path = route.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(req.segments[n] ?? ''));
            const qs = new URLSearchParams(req.query).toString();
            const writes = route.method !== 'GET';
            const before = writes ? await storedCount() : 0;
            const res = await checkedFetch(`${engine.url}${path}${qs ? `?${qs}` : ''}`, {
              method: route.method,
              redirect: 'manual',
              headers: { authorization: `Bearer ${engine.api.token}`, ...(req.body ? { 'content-type': req.body.type } : {}) },
              body: req.body && route.method !== 'GET' ? req.body.text : undefined,
            });
            const text = await res.text();
            const where = `${route.key} ${res.status} ${path.slice(0, 80)}`;
            expect(res.status, where).toBeLessThan(500);
            expect(CONTRACT.has(res.status), where).toBe(true);
            if (res.status >= 400 && !HTML.has(route.key)) {
              const body = JSON.parse(text) as { error?: unknown };
              expect(typeof body.error, where).toBe('string');
              expect((body.error as string).length, where).toBeGreaterThan(5);
            }
            if (writes && res.status >= 400 && res.status !== 429) expect(await storedCount(), `${where}: stored something`).toBe(before);
          }),
          { numRuns: 12, seed: 1000 + i, endOnFailure: true },
        )
        .catch((err: Error) => {
          const cause = (err as Error & { cause?: Error }).cause;
          failures.push(`${route.key}: ${(cause?.message ?? err.message).split('\n')[0]!.slice(0, 300)}`);
        });
    }
    expect(failures).toEqual([]);
  });

  it('takes CSV edge cases without a fault: BOM, CRLF, quotes, formulas behind whitespace and control characters, 10 MB + 1 byte', async () => {
    const c = await campaign(engine.api);
    const send = async (csv: string | Buffer) => {
      const form = new FormData();
      form.append('campaignId', c.id);
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'x.csv');
      const res = await checkedFetch(`${engine.url}/v1/leads/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${engine.api.token}` },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const cells = fc.oneof(nasty, fc.constantFrom('"a""b"', '"multi\r\nline"', '\t=1+2', '\u0000@SUM(1)', ' -2', '+1 555', '"unclosed'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.emailAddress(), cells, cells), { maxLength: 8 }), fc.boolean(), async (rows, crlf) => {
        const eol = crlf ? '\r\n' : '\n';
        const csv = '\uFEFFemail,first name,notes' + eol + rows.map(([e, a, b]) => [e, a, b].join(',')).join(eol);
        const res = await send(csv);
        expect(res.status).toBeLessThan(500);
        if (res.status === 200) {
          expect(res.body.received).toBeGreaterThanOrEqual(0);
          const stored = (await engine.api.request('GET', `/v1/leads?campaignId=${c.id}&limit=1000`)).body.leads as {
            firstName: string | null;
          }[];
          // Whatever came in, nothing stored starts with a formula character.
          for (const l of stored) expect(l.firstName ?? '').not.toMatch(/^[\s\p{Cc}]*[=+\-@＝＋－＠]/u);
        } else expect(typeof res.body.error).toBe('string');
      }),
      { numRuns: 25, seed: 42 },
    );
    const big = await send(Buffer.alloc(10_485_761, 'a'));
    expect(big.status).toBe(413);
  });
});
