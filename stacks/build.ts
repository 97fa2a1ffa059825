/**
 * `npm run build`: one esbuild bundle per Lambda function of the manifest,
 * the way SST packages them, with the size of each printed. The AWS SDK is
 * bundled too (not taken from the runtime) so the code that was tested is
 * the code that runs.
 */
import { build } from 'esbuild';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { functions } from '../functions/src/manifest.ts';

const root = resolve(import.meta.dirname, '..');
const out = resolve(root, 'dist/functions');

for (const [name, def] of Object.entries(functions)) {
  const outfile = resolve(out, `${name}.mjs`);
  await build({
    entryPoints: [resolve(root, 'functions/src', def.handler)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    sourcemap: true,
    // ESM bundles of CommonJS dependencies need a require of their own.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
  console.log(`${name.padEnd(12)} ${((await stat(outfile)).size / 1024).toFixed(0).padStart(6)} KiB  ${outfile.replace(root + '/', '')}`);
}
