/**
 * Writes docs/openapi.json from the same generator GET /v1/openapi.json
 * serves: `npx tsx functions/src/openapi-write.ts [path]`. A test fails when
 * the committed file is out of date.
 */
import { fileURLToPath } from 'node:url';
import { writeOpenApiFile } from './openapi.ts';

const path = process.argv[2] ?? fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
writeOpenApiFile(path);
console.log(`wrote ${path}`);
