import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CampaignStatus } from '@outbound/core/campaign/entity';
import { PROBLEM_CODES, WARNING_CODES } from '@outbound/core/campaign/launch-check';
import { LEAD_STATUSES } from '@outbound/core/lead/entity';
import { unitDeps } from '@outbound/core/testing/unit-deps';
import { MailboxProvider, MailboxStatus } from '@outbound/core/mailbox/entity';
import { SeedProvider } from '@outbound/core/seed/seed.schema';
import { handler as fallback } from './http/fallback.ts';
import { withDeps } from './lib/deps.ts';
import { allRoutes, type RouteDef } from './manifest.ts';
import { documentedRoutes, openApiDocument, openApiFileText, writeOpenApiFile } from './openapi.ts';

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<
    string,
    Record<
      string,
      { security?: unknown[]; responses: Record<string, unknown>; requestBody?: unknown; parameters?: { name: string; in: string }[] }
    >
  >;
  components: { schemas: Record<string, unknown> };
};

describe('the OpenAPI document', () => {
  const doc = openApiDocument('https://outbound.example.com') as Doc;

  it('is a valid OpenAPI 3.1 document (checked against the specification’s own JSON Schema)', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The check can fail: a response without its description is refused.
    const broken = JSON.parse(JSON.stringify(doc)) as Doc;
    delete (broken.paths['/v1/replies']!.get!.responses['200'] as { description?: string }).description;
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('is OpenAPI 3.1, version 1.0.0, and describes exactly the routes the engine serves', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const served = allRoutes()
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const described = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(described).toEqual(served);
    expect(documentedRoutes().sort()).toEqual(served);
  });

  it('marks exactly the public routes as needing no token, and every other one as bearer', () => {
    for (const r of allRoutes()) {
      const op = doc.paths[r.path]![r.method.toLowerCase()]!;
      if (r.public) expect(op.security, r.key).toEqual([]);
      else {
        expect(op.security, r.key).toBeUndefined();
        expect(Object.keys(op.responses), r.key).toContain('401');
      }
    }
  });

  it('takes request bodies from the verbs’ own schemas, path parameters from the path, and every $ref resolves', () => {
    const create = doc.paths['/v1/mailboxes']!.post!.requestBody as {
      content: { 'application/json': { schema: { properties: Record<string, unknown>; required: string[] } } };
    };
    expect(Object.keys(create.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['email', 'domainId', 'authPassword', 'dailyCap']),
    );
    expect(create.content['application/json'].schema.required).toEqual(expect.arrayContaining(['email', 'domainId']));
    expect(doc.paths['/v1/replies']!.get!.parameters!.map((p) => p.name).sort()).toEqual([
      'campaignId',
      'cursor',
      'limit',
      'mailboxId',
      'since',
      'status',
      'unread',
    ]);
    expect(doc.paths['/v1/campaigns/{id}']!.patch!.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!);
    for (const name of new Set(refs)) expect(doc.components.schemas, name).toHaveProperty(name);
  });

  it('takes the answers from core’s view schemas: their enums are core’s own, and every object stays open to new fields', () => {
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, any> }>;
    expect(schemas.Lead!.properties.status.enum).toEqual([...LEAD_STATUSES]);
    expect(schemas.Campaign!.properties.status.enum).toEqual(CampaignStatus.options);
    expect(schemas.Mailbox!.properties.provider.enum).toEqual(MailboxProvider.options);
    expect(schemas.Mailbox!.properties.status.enum).toEqual(MailboxStatus.options);
    expect(schemas.SeedInbox!.properties.provider.enum).toEqual(SeedProvider.options);
    expect(schemas.LaunchCheck!.properties.problems.items.properties.code.enum).toEqual([...PROBLEM_CODES]);
    expect(schemas.LaunchCheck!.properties.warnings.items.properties.code.enum).toEqual([...WARNING_CODES]);
    // Fields may be added within version 1: no object of the document refuses one it does not name.
    expect(JSON.stringify(doc.components.schemas)).not.toContain('"additionalProperties":false');
  });

  it('every response $ref resolves too, and each operation lists the refusals its route can give (400 JSON, 413 body, 415 JSON-only, 429, 500)', () => {
    const responses = (doc.components as { responses?: Record<string, unknown> }).responses ?? {};
    for (const m of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/responses\/(\w+)"/g))
      expect(responses, m[1]).toHaveProperty(m[1]!);
    for (const r of allRoutes()) {
      const codes = Object.keys(doc.paths[r.path]![r.method.toLowerCase()]!.responses);
      expect(codes, r.key).toEqual(expect.arrayContaining(['404', '429', '500']));
      if (r.method !== 'GET') expect(codes, r.key).toContain('413');
      if (r.jsonOnly) expect(codes, r.key).toContain('415');
    }
  });
});

describe('operation ids', () => {
  const doc = openApiDocument() as Doc & { webhooks: Record<string, { post: { operationId: string } }> };

  it('every route has one, readable (lowerCamelCase) and unique, and the document uses it', () => {
    const ids = allRoutes().map((r) => r.operationId);
    for (const r of allRoutes()) expect(r.operationId, r.key).toMatch(/^[a-z][a-zA-Z0-9]+$/);
    // Each operation of the document is named by its route's id (a route left out of the document names nothing there).
    const named = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, (op as { operationId?: string }).operationId]),
    );
    expect(named.length).toBeGreaterThan(0);
    const byKey = new Map(allRoutes().map((r) => [r.key, r.operationId]));
    for (const [key, id] of named) expect(id, key).toBe(byKey.get(key!));
    // Unique across the routes and the webhook events too: a generated client keys its `operations` by them.
    const all = [...ids, ...Object.values(doc.webhooks).map((w) => w.post.operationId)];
    expect(all.filter((id, i) => all.indexOf(id) !== i)).toEqual([]);
    for (const id of all) expect(id).toMatch(/^[a-z][a-zA-Z0-9]+$/);
    expect(ids).toEqual(
      expect.arrayContaining([
        'listCampaigns',
        'createMailbox',
        'launchCampaign',
        'listReplies',
        'updateReply',
        'getConversation',
        'sendMessage',
        'eraseLead',
        'login',
      ]),
    );
    expect(doc.webhooks['reply.status_changed']!.post.operationId).toBe('replyStatusChangedEvent');
  });

  it('is required where a route is declared', () => {
    // The check is the typechecker's: were operationId optional, this directive would be unused and `tsc` would fail.
    // @ts-expect-error a route without an operationId does not compile
    const route: RouteDef = { method: 'GET', path: '/v1/example' };
    expect(route).not.toHaveProperty('operationId');
  });
});

describe('docs/openapi.json', () => {
  const committed = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

  it('is what the generator writes now (run `npx tsx functions/src/openapi-write.ts` after changing the API)', () => {
    const text = readFileSync(committed, 'utf8');
    expect(text === openApiFileText(), 'docs/openapi.json is out of date: run npx tsx functions/src/openapi-write.ts and commit it').toBe(
      true,
    );
    // writeOpenApiFile writes exactly that text.
    const out = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'sub', 'openapi.json');
    writeOpenApiFile(out);
    expect(readFileSync(out, 'utf8')).toBe(text);
  });

  it('is a valid OpenAPI 3.1 document with a placeholder for the installation’s address, and the check can tell an old one', async () => {
    const file = JSON.parse(readFileSync(committed, 'utf8')) as Doc & {
      servers: { url: string; variables: Record<string, { default: string }> }[];
    };
    const result = await new Validator().validate(file as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(file.servers[0]!.url).toBe('{baseUrl}');
    expect(file.servers[0]!.variables.baseUrl!.default).toBe('http://localhost:3000');
    // A document missing a route is not the generator's text.
    const stale = JSON.parse(openApiFileText()) as Doc;
    delete stale.paths['/v1/replies'];
    expect(`${JSON.stringify(stale, null, 2)}\n` === openApiFileText()).toBe(false);
  });

  it('is what GET /v1/openapi.json answers, with the installation’s address as its server when it has one', async () => {
    const file = JSON.parse(readFileSync(committed, 'utf8')) as Record<string, unknown>;
    const served = async (publicBaseUrl: string) => {
      const event = {
        version: '2.0',
        routeKey: 'GET /v1/openapi.json',
        rawPath: '/v1/openapi.json',
        rawQueryString: '',
        headers: {},
        requestContext: { requestId: 'r-1', http: { method: 'GET', path: '/v1/openapi.json', sourceIp: '203.0.113.9' } },
        isBase64Encoded: false,
      };
      const deps = unitDeps({ config: { publicBaseUrl, rateLimits: false, timeScale: 1 } });
      const out = await withDeps(deps, () =>
        fallback(
          event as unknown as APIGatewayProxyEventV2,
          { awsRequestId: 'a-1', functionName: 'fallback', getRemainingTimeInMillis: () => 29_000 } as unknown as Context,
        ),
      );
      expect(out.statusCode).toBe(200);
      return JSON.parse(out.body ?? '') as Record<string, unknown>;
    };
    expect(await served('https://outbound.example.com')).toEqual({ ...file, servers: [{ url: 'https://outbound.example.com' }] });
    // Without an address the answer is the file itself, its placeholder server included.
    expect(await served('')).toEqual(file);
    // And the generator's document for that address is the same one.
    expect(await served('https://outbound.example.com')).toEqual(openApiDocument('https://outbound.example.com'));
  });
});
