#!/usr/bin/env node
// The rehearsal is TypeScript: esbuild (a dependency of this folder) compiles the driver, which then bundles the config.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '.out-cli/cli.mjs');
await build({
  entryPoints: [join(here, 'src/cli.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  logLevel: 'error',
});
const { main } = await import(pathToFileURL(out).href);
process.exit(await main(here, process.argv.slice(2)));
