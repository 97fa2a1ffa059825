/**
 * Holds every answer the end-to-end tests get from the engine to the API's
 * own OpenAPI document (functions/src/openapi.ts, the one GET
 * /v1/openapi.json serves): the status must be one the operation lists, and
 * a JSON body must validate against that status's schema. A mismatch throws,
 * naming the route, the status and what did not validate, so the test that
 * made the request fails. Where the document is wrong, fix the document.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '@outbound/functions/openapi';

type Json = Record<string, any>;

/** What came back, as the client saw it. */
export interface Observed {
  method: string;
  /** The request's path, with or without its query string. */
  path: string;
  status: number;
  /** The content-type header ('' when none). */
  contentType: string;
  /** The body as text ('' when empty). */
  text: string;
  /** The location header of a redirect. */
  location?: string | null;
}

interface Operation {
  key: string;
  template: string;
  regex: RegExp;
  params: number;
  responses: Record<string, Json>;
}

// ajv-formats is CommonJS: its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

/**
 * The statuses any path answers when no operation matches it (the engine's catch-all route): 404,
 * a body over 10 MB, the per-minute limit, a fault. They are the document's own shared responses.
 */
const UNMATCHED: Record<string, string> = { '404': 'NotFound', '413': 'TooLarge', '429': 'RateLimited', '500': 'ServerError' };

export class OpenApiChecker {
  private readonly ops: Operation[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json = openApiDocument()) {
    this.ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(this.ajv);
    // Component schemas are reached as they are written in the document: #/components/schemas/Name.
    const schemas = JSON.stringify(doc.components?.schemas ?? {}).replace(/"#\/components\/schemas\//g, '"#/$defs/');
    this.ajv.addSchema({ $id: 'openapi:components', $defs: JSON.parse(schemas) });
    this.ops = Object.entries(doc.paths as Record<string, Record<string, Json>>)
      .flatMap(([template, methods]) =>
        Object.entries(methods).map(([method, op]) => {
          const params = (template.match(/\{\w+\}/g) ?? []).length;
          const pattern = template
            .split('/')
            .map((seg) => (/^\{\w+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
            .join('/');
          return {
            key: `${method.toUpperCase()} ${template}`,
            template,
            regex: new RegExp(`^${pattern}$`),
            params,
            responses: op.responses as Record<string, Json>,
          };
        }),
      )
      // Literal segments win over parameters, as on API Gateway (/v1/leads/erase before /v1/leads/{id}).
      .sort((a, b) => a.params - b.params);
  }

  /** The operation a request lands on, as the engine routes it; undefined for the catch-all. */
  operationFor(method: string, path: string): Operation | undefined {
    const pathname = path.split('?')[0]!;
    return this.ops.find((o) => o.key.startsWith(`${method.toUpperCase()} `) && o.regex.test(pathname));
  }

  private resolve(node: Json): Json {
    let n = node;
    for (let hops = 0; typeof n?.$ref === 'string' && hops < 10; hops++) {
      const parts = (n.$ref as string).replace(/^#\//, '').split('/');
      n = parts.reduce<Json>((at, p) => at?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
      if (!n) throw new Error(`OpenAPI check: the document's ${node.$ref} resolves to nothing`);
    }
    return n;
  }

  private validator(where: string, schema: Json): ValidateFunction {
    let v = this.compiled.get(where);
    if (!v) {
      const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"openapi:components#/$defs/')) as Json;
      v = this.ajv.compile(rewritten);
      this.compiled.set(where, v);
    }
    return v;
  }

  /** What is wrong with an answer, in a sentence; undefined when it is what the document says. */
  problem(o: Observed): string | undefined {
    const op = this.operationFor(o.method, o.path);
    const route = op ? op.key : `${o.method.toUpperCase()} ${o.path.split('?')[0]} (no operation: the catch-all)`;
    const status = String(o.status);
    const listed = op
      ? op.responses
      : Object.fromEntries(Object.entries(UNMATCHED).map(([s, name]) => [s, { $ref: `#/components/responses/${name}` }]));
    const at = `${route} answered ${o.status}`;
    const raw = listed[status];
    if (!raw)
      return `${at}, which the document does not list for it (it lists ${Object.keys(listed).join(', ')}); body: ${o.text.slice(0, 300)}`;
    const response = this.resolve(raw);
    const type = o.contentType.split(';')[0]!.trim().toLowerCase();
    const content = response.content as Record<string, Json> | undefined;
    if (!content) {
      if (o.text.length) return `${at} with a body (${type || 'no type'}), where the document describes none: ${o.text.slice(0, 300)}`;
      if (o.status >= 300 && o.status < 400 && response.headers?.location && !o.location)
        return `${at} without the location header the document promises`;
      return undefined;
    }
    if (o.method.toUpperCase() === 'HEAD') return undefined;
    const media = content[type];
    if (!media)
      return `${at} as ${type || 'no content type'}, where the document says ${Object.keys(content).join(' or ')}; body: ${o.text.slice(0, 300)}`;
    if (type !== 'application/json') return undefined;
    let body: unknown;
    try {
      body = JSON.parse(o.text);
    } catch {
      return `${at} with a body that is not JSON: ${o.text.slice(0, 300)}`;
    }
    const validate = this.validator(`${op?.key ?? 'unmatched'} ${status} ${type}`, this.resolve(media.schema ?? {}));
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath || '(body)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
      )
      .join('; ');
    return `${at} with a body that does not match the document's schema${media.schema?.$ref ? ` ${media.schema.$ref}` : ''}: ${errors}; body: ${JSON.stringify(body).slice(0, 400)}`;
  }

  /** Throws when the answer is not what the document says. */
  assert(o: Observed): void {
    const p = this.problem(o);
    if (p) throw new OpenApiMismatch(p);
  }
}

export class OpenApiMismatch extends Error {
  constructor(problem: string) {
    super(`The answer does not match the OpenAPI document (functions/src/openapi.ts): ${problem}`);
    this.name = 'OpenApiMismatch';
  }
}

let shared: OpenApiChecker | undefined;
/** One checker per test file (the document is built once). */
export const openApiChecker = () => (shared ??= new OpenApiChecker());

/** The engines a test file started: only their answers are checked (other servers, like an OAuth stand-in, are not the API). */
const engineOrigins = new Set<string>();
export function registerEngine(url: string): void {
  engineOrigins.add(new URL(url).origin);
}

/**
 * `fetch` for tests that need a raw request (a form, a redirect not followed, a header of their own):
 * the answer is returned as it came, after being held to the document when it comes from an engine.
 */
export async function checkedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  const url = new URL(String(input));
  if (!engineOrigins.has(url.origin)) return res;
  const text = await res.clone().text();
  openApiChecker().assert({
    method: init?.method ?? 'GET',
    path: url.pathname,
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    text,
    location: res.headers.get('location'),
  });
  return res;
}
