/**
 * `npm run build`: every Lambda bundle (stacks/bundles.ts) into
 * dist/functions, each with its size against its budget, and the API's
 * description into docs/openapi.json.
 */
import { resolve } from 'node:path';
import { writeOpenApiFile } from '../functions/src/openapi.ts';
import { budgetOfFunction, buildBundles, kib, root } from './bundles.ts';

const out = resolve(root, 'dist/functions');
const bundles = await buildBundles(out);
let over = 0;
for (const b of bundles.sort((x, y) => x.name.localeCompare(y.name))) {
  const budget = budgetOfFunction(b.name, b.def);
  if (kib(b.bytes) > budget) over++;
  const kits = (b.def.uses ?? []).join(', ') || '-';
  console.log(`${b.name.padEnd(16)} ${String(kib(b.bytes)).padStart(6)} KiB  budget ${String(budget).padStart(5)} KiB  kits ${kits.padEnd(10)} ${b.file.replace(root + '/', '')}`);
}
if (over) {
  console.error(`${over} bundle(s) over budget: see stacks/bundles.ts.`);
  process.exitCode = 1;
}

// The machine-readable API description, from the same generator GET /v1/openapi.json serves.
writeOpenApiFile(resolve(root, 'docs/openapi.json'));
console.log('docs/openapi.json written (OpenAPI 3.1, version 1.0.0)');
