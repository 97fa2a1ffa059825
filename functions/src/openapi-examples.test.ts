import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { allRoutes } from './manifest.ts';
import { EXAMPLES } from './openapi-examples.ts';
import { openApiDocument } from './openapi.ts';

type Json = Record<string, any>;
type Media = { schema: Json; example?: unknown };

// ajv-formats is CommonJS: its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

const doc = openApiDocument() as Json;
const operations = new Map<string, Json>(
  Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((ops) =>
    Object.values(ops).map((op) => [op.operationId as string, op]),
  ),
);

/** Every JSON body of the document that carries an example: where it is, its schema and the example. */
function examplesInDocument(): { at: string; media: Media }[] {
  const found: { at: string; media: Media }[] = [];
  for (const [id, op] of operations) {
    const request = op.requestBody?.content?.['application/json'] as Media | undefined;
    if (request && 'example' in request) found.push({ at: `${id} request`, media: request });
    for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
      const media = response.content?.['application/json'] as Media | undefined;
      if (media && 'example' in media) found.push({ at: `${id} ${status}`, media });
    }
  }
  return found;
}

/** A validator that reaches the document's components as the document writes them (#/components/schemas/Name). */
function validatorFor() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const rewrite = (s: unknown) =>
    JSON.parse(JSON.stringify(s).replace(/"#\/components\/schemas\//g, '"openapi:components#/$defs/')) as Json;
  ajv.addSchema({ $id: 'openapi:components', $defs: rewrite(doc.components.schemas) });
  return (schema: Json, value: unknown): string | undefined => {
    const validate = ajv.compile(rewrite(schema));
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };
}

describe('the examples of the OpenAPI document', () => {
  it('belong to operations the manifest declares, and each lands in the document where it says', () => {
    const ids = new Set(allRoutes().map((r) => r.operationId));
    for (const [id, ex] of Object.entries(EXAMPLES)) {
      expect(ids, id).toContain(id);
      const op = operations.get(id)!;
      const success = Object.entries(op.responses as Record<string, Json>).find(
        ([status]) => status.startsWith('2') || status === '410',
      )![1];
      if (ex.request !== undefined) expect(op.requestBody?.content?.['application/json']?.example, `${id} request`).toEqual(ex.request);
      if (ex.response !== undefined) expect(success.content?.['application/json']?.example, `${id} response`).toEqual(ex.response);
      // Only a refusal with a body of its own can carry one: the shared responses are one object for every route.
      for (const [status, body] of Object.entries(ex.errors ?? {}))
        expect(op.responses[status]?.content?.['application/json']?.example, `${id} ${status}`).toEqual(body);
    }
    // The main operations have them.
    for (const id of [
      'login',
      'createDomain',
      'createMailbox',
      'listCampaigns',
      'createCampaign',
      'getCampaign',
      'launchCampaign',
      'listReplies',
      'updateReply',
      'getConversation',
      'sendMessage',
    ]) {
      expect(Object.keys(EXAMPLES), id).toContain(id);
    }
  });

  it('each validates against its own schema', () => {
    const problem = validatorFor();
    const found = examplesInDocument();
    expect(found.length).toBeGreaterThanOrEqual(40);
    for (const { at, media } of found) expect(problem(media.schema, media.example), at).toBeUndefined();
    // The check can fail: a campaign without its status is not a campaign.
    const campaign = operations.get('getCampaign')!.responses['200'].content['application/json'] as Media;
    const { status: _, ...withoutStatus } = campaign.example as Json;
    expect(problem(campaign.schema, withoutStatus)).toMatch(/status/);
  });

  it('are the ones docs/api.md shows: each answer is one of its JSON blocks, each request body one of its curl bodies', () => {
    const page = readFileSync(fileURLToPath(new URL('../../docs/api.md', import.meta.url)), 'utf8');
    const parsed = (texts: string[]) =>
      texts.flatMap((t) => {
        try {
          return [JSON.parse(t) as unknown];
        } catch {
          return []; // a block that is not one JSON value (a document and a count, a form body)
        }
      });
    const answers = parsed([...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!));
    const requests = parsed([...page.matchAll(/ -d '([^']*)'/g)].map((m) => m[1]!));
    for (const [id, ex] of Object.entries(EXAMPLES)) {
      if (ex.request !== undefined) expect(requests, `${id} request`).toContainEqual(ex.request);
      if (ex.response !== undefined) expect(answers, `${id} response`).toContainEqual(ex.response);
      for (const [status, body] of Object.entries(ex.errors ?? {})) expect(answers, `${id} ${status}`).toContainEqual(body);
    }
  });
});
