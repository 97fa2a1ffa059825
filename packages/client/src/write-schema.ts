/**
 * `npm run client`: writes docs/openapi.json from the engine's routes, then
 * the client's types (packages/client/src/schema.ts) from it, so one command
 * brings both up to date after the API changes.
 */
// A script of the repository, not of the package: it reaches the engine's generator by path.
import { writeOpenApiFile } from '../../../functions/src/openapi.ts';
import { OPENAPI_FILE, SCHEMA_FILE, writeSchemaFile } from './generate.ts';

writeOpenApiFile(OPENAPI_FILE);
await writeSchemaFile();
console.log(`wrote ${OPENAPI_FILE} and ${SCHEMA_FILE}`);
