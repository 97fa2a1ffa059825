/**
 * The stand-in for SST's `Runtime.Build`: bundles a Node handler the way the
 * pinned SST does (ESM, keepNames, `module` before `main`, a banner giving the
 * bundle `require`, `__filename` and `__dirname`), into the artifact
 * directory the Function component zips. A bundle that does not build fails
 * the rehearsal as it would fail `sst deploy`.
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';

export interface BuildInput {
  functionID: string;
  handler: string;
  runtime: string;
  properties?: { format?: 'esm' | 'cjs'; minify?: boolean; sourcemap?: boolean; banner?: string };
}

const BANNER = [
  `import { createRequire as topLevelCreateRequire } from 'module';`,
  `const require = topLevelCreateRequire(import.meta.url);`,
  `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
  `const __filename = topLevelFileUrlToPath(import.meta.url)`,
  `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
].join('\n');

/** The options SST 3.19.3 builds a Node function with (the parts that change the artifact). */
export function sstBuildOptions(props: BuildInput['properties'] = {}) {
  const esm = (props.format ?? 'esm') === 'esm';
  return {
    bundle: true,
    platform: 'node' as const,
    target: 'es2023',
    format: esm ? ('esm' as const) : ('cjs' as const),
    mainFields: ['module', 'main'],
    keepNames: true,
    minify: props.minify ?? false,
    sourcemap: props.sourcemap ? ('linked' as const) : false,
    banner: { js: [esm ? BANNER : '', props.banner ?? ''].filter(Boolean).join('\n') },
    outExtension: esm ? { '.js': '.mjs' } : undefined,
    logLevel: 'silent' as const,
  };
}

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs'];

/** Builds once per function per rehearsal (both stages bundle the same code), then copies into the stage's artifact directory. */
export async function runtimeBuild(input: BuildInput, paths: { root: string; work: string; cache: string }) {
  const dot = input.handler.lastIndexOf('.');
  const base = input.handler.slice(0, dot);
  const source = EXTENSIONS.map((e) => resolve(paths.root, base + e)).find(existsSync);
  if (!source) return { handler: input.handler, out: '', errors: [`${input.functionID}: no file for handler ${input.handler}`], sourcemaps: [] };
  const cached = join(paths.cache, input.functionID);
  if (!existsSync(cached)) {
    try {
      await build({ ...sstBuildOptions(input.properties), entryPoints: [source], outdir: join(cached, base, '..'), absWorkingDir: paths.root });
    } catch (err) {
      return { handler: input.handler, out: '', errors: [`${input.functionID}: ${(err as Error).message}`], sourcemaps: [] };
    }
  }
  const out = join(paths.work, 'artifacts', `${input.functionID}-src`);
  await mkdir(out, { recursive: true });
  await cp(cached, out, { recursive: true });
  const sourcemaps = (await readdir(out, { recursive: true })).filter((f) => String(f).endsWith('.map')).map((f) => join(out, String(f)));
  return { handler: relative(out, join(out, input.handler)), out, errors: [] as string[], sourcemaps };
}
