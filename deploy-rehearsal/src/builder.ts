/**
 * The stand-in for SST's `Runtime.Build`: bundles a Node handler with SST's
 * own options (sst-build-options.ts) into `bundle.mjs` of the artifact
 * directory the Function component zips, and answers with the handler SST
 * would (`bundle.handler`). A bundle that does not build fails the
 * rehearsal as it would fail `sst deploy`.
 */
import { build, type Plugin } from 'esbuild';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sstBuildOptions, type NodeProperties } from './sst-build-options.ts';

export interface BuildInput {
  functionID: string;
  handler: string;
  runtime: string;
  properties?: NodeProperties;
}

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs'];

/** Builds once per function per rehearsal (both stages bundle the same code), then copies into the stage's artifact directory. */
export async function runtimeBuild(input: BuildInput, paths: { root: string; work: string; cache: string }) {
  const base = input.handler.slice(0, -extname(input.handler).length);
  const source = EXTENSIONS.map((e) => resolve(paths.root, base + e)).find(existsSync);
  const fail = (error: string) => ({
    handler: input.handler,
    out: '',
    errors: [`${input.functionID}: ${error}`],
    sourcemaps: [] as string[],
  });
  if (!source) return fail(`handler not found: ${input.handler}`);
  const esm = input.properties?.format !== 'cjs';
  const cached = join(paths.cache, input.functionID);
  if (!existsSync(cached)) {
    try {
      // `nodejs.plugins` names a file whose default export is the esbuild plugins SST's build runs (the console's files).
      const plugins = input.properties?.plugins
        ? ((await import(pathToFileURL(resolve(paths.root, input.properties.plugins)).href)) as { default: Plugin[] }).default
        : [];
      await build({
        ...sstBuildOptions(input.runtime, input.properties),
        plugins,
        entryPoints: [source],
        outfile: join(cached, esm ? 'bundle.mjs' : 'bundle.cjs'),
        absWorkingDir: paths.root,
        logLevel: 'silent',
      });
    } catch (err) {
      return fail((err as Error).message);
    }
  }
  const out = join(paths.work, 'artifacts', `${input.functionID}-src`);
  await mkdir(out, { recursive: true });
  await cp(cached, out, { recursive: true });
  const sourcemaps = (await readdir(out)).filter((f) => f.endsWith('.map')).map((f) => join(out, f));
  return { handler: `bundle${extname(input.handler)}`, out, errors: [] as string[], sourcemaps };
}
