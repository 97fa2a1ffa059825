/**
 * One esbuild bundle per Lambda function of the manifest, the way SST
 * packages them (its own esbuild options, ESM, minified, the AWS SDK bundled rather than taken from
 * the runtime, so the code that was tested is the code that runs). Used by
 * `npm run build`, by the bundle tests (budgets, and a smoke run of every
 * bundle with no node_modules) and by the bench (cold starts).
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { functions, type FunctionDef, type KitName } from '../functions/src/manifest.ts';
import { consoleAssetsPlugin } from './console-plugin.ts';

export const root = resolve(import.meta.dirname, '..');

/**
 * Each bundle's ceiling, in KiB: what every function carries (the AWS SDK's
 * DynamoDB, KMS and SQS clients, zod, middy, core) stays under the base, 1 MB;
 * a kit adds its libraries. `npm run build` prints the figures.
 */
export const BUDGET_KIB = { base: 1_024, mail: 2_800, smtp: 400, ai: 700, uploads: 350 } as const;

export const budgetOf = (def: FunctionDef): number => BUDGET_KIB.base + (def.uses ?? []).reduce((sum, kit) => sum + BUDGET_KIB[kit], 0);

/**
 * The console function's own ceiling, in KiB: the base, and the console's built files (about 60 KiB of script and
 * style) with room to grow; the script's own first-load budget (200 KB compressed) is checked by its build test.
 */
export const CONSOLE_BUDGET_KIB = BUDGET_KIB.base + 250;

/** The ceiling of a named function's bundle. */
export const budgetOfFunction = (name: string, def: FunctionDef): number => (name === 'console' ? CONSOLE_BUDGET_KIB : budgetOf(def));

/** Plugins a function's bundle is built with: the console function carries the console's built files. */
export const pluginsOf = (name: string) => (name === 'console' ? [consoleAssetsPlugin()] : []);

/** Packages only kits bring, with the kits that may: a bundle of a function naming none of them must not hold the package. */
export const KIT_PACKAGES: Record<string, KitName[]> = {
  nodemailer: ['mail', 'smtp'],
  imapflow: ['mail'],
  mailparser: ['mail'],
  libmime: ['mail'],
  openai: ['ai'],
  '@anthropic-ai/sdk': ['ai'],
  '@aws-sdk/client-s3': ['uploads'],
  '@aws-sdk/s3-request-presigner': ['uploads'],
};

/**
 * How every Lambda bundle is built: exactly as SST 4.17.0 builds a Node
 * function for the stack's arguments (`nodejs24.x`, `format: 'esm'`,
 * `minify: true`): ES2023, `module` before `main`, names kept, `sharp` and
 * `pg-native` left out, and SST's banner giving the bundle `require`,
 * `__filename` and `__dirname`. So the bundle the tests run and the bench
 * times is the artifact that ships; stacks/bundles.test.ts holds these to the
 * deploy rehearsal's copy of SST's options.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'es2024',
  format: 'esm',
  minify: true,
  keepNames: true,
  mainFields: ['module', 'main'],
  external: ['sharp', 'pg-native'],
  banner: {
    js: [
      `import { createRequire as topLevelCreateRequire } from 'module';`,
      `const require = topLevelCreateRequire(import.meta.url);`,
      `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
      `const __filename = topLevelFileUrlToPath(import.meta.url)`,
      `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
      '',
    ].join('\n'),
  },
  logLevel: 'warning',
} satisfies BuildOptions;

export interface Bundle {
  name: string;
  def: FunctionDef;
  file: string;
  bytes: number;
  /** npm packages whose code is in the bundle. */
  packages: Set<string>;
  /** Every source file with code in the bundle, as esbuild names it (`node_modules/zod/v4/locales/en.js`). */
  files: Set<string>;
}

export async function buildBundles(outDir: string): Promise<Bundle[]> {
  return Promise.all(
    (Object.entries(functions) as [string, FunctionDef][]).map(async ([name, def]) => {
      const file = resolve(outDir, `${name}.mjs`);
      const result = await build({
        ...BUNDLE_OPTIONS,
        plugins: pluginsOf(name),
        entryPoints: [resolve(root, 'functions/src', def.handler)],
        outfile: file,
        sourcemap: true,
        metafile: true,
      });
      return { name, def, file, bytes: (await stat(file)).size, packages: packagesIn(result.metafile), files: filesIn(result.metafile) };
    }),
  );
}

function packagesIn(meta: Metafile): Set<string> {
  const found = new Set<string>();
  for (const output of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      if (m && bytesInOutput > 0) found.add(m[1]!);
    }
  }
  return found;
}

function filesIn(meta: Metafile): Set<string> {
  return new Set(
    Object.values(meta.outputs).flatMap((output) =>
      Object.entries(output.inputs).flatMap(([input, { bytesInOutput }]) => (bytesInOutput > 0 ? [input] : [])),
    ),
  );
}

export const kib = (bytes: number) => Math.round(bytes / 1024);
