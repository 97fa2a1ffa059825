/**
 * Makes src/schema.ts, the client's types, from the API's description
 * (docs/openapi.json) with openapi-typescript. `npm run client` and
 * `npm run build` write it; a test fails when the committed file is not what
 * this makes from the committed document. Node only: the client itself
 * (index.ts) never imports this.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

export const OPENAPI_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const SCHEMA_FILE = fileURLToPath(new URL('./schema.ts', import.meta.url));

/** The text of schema.ts for a document (docs/openapi.json's text by default). */
export async function schemaSource(documentText: string = readFileSync(OPENAPI_FILE, 'utf8')): Promise<string> {
  const ast = await openapiTS(JSON.parse(documentText) as OpenAPI3, { silent: true });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

/** Writes schema.ts (or `path`) from docs/openapi.json. */
export async function writeSchemaFile(path: string = SCHEMA_FILE): Promise<void> {
  writeFileSync(path, await schemaSource());
}
