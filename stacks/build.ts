/**
 * `npm run build`: every Lambda bundle (stacks/bundles.ts) into
 * dist/functions, each with its size against its budget, and the API's
 * description into docs/openapi.json, and the typed client's types from it
 * (packages/client/src/schema.ts).
 */
import { resolve } from 'node:path';
import { writeOpenApiFile } from '../functions/src/openapi.ts';
import { writeSchemaFile } from '../packages/client/src/generate.ts';
import { budgetOfFunction, buildBundles, kib, root } from './bundles.ts';

const out = resolve(root, 'dist/functions');
const bundles = await buildBundles(out);
let over = 0;
for (const b of bundles.sort((x, y) => x.name.localeCompare(y.name))) {
  const budget = budgetOfFunction(b.name, b.def);
  if (kib(b.bytes) > budget) over++;
  const kits = (b.def.uses ?? []).join(', ') || '-';
  console.log(
    `${b.name.padEnd(16)} ${String(kib(b.bytes)).padStart(6)} KiB  budget ${String(budget).padStart(5)} KiB  kits ${kits.padEnd(10)} ${b.file.replace(root + '/', '')}`,
  );
}
if (over) {
  console.error(`${over} bundle(s) over budget: see stacks/bundles.ts.`);
  process.exitCode = 1;
}

// The machine-readable API description, from the same generator GET /v1/openapi.json serves.
writeOpenApiFile(resolve(root, 'docs/openapi.json'));
console.log('docs/openapi.json written (OpenAPI 3.1, version 1.0.0)');
// The typed client's types, from that document (what `npm run client` also does).
await writeSchemaFile();
console.log('packages/client/src/schema.ts written');
