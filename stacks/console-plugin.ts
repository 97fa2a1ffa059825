/**
 * The console's files inside the Lambda bundle of the function that serves
 * them: this esbuild plugin builds the console (packages/console/src/build.ts)
 * while the function is bundled and puts a module answering that result in
 * place of the build module, so the function carries the files (a few tens of
 * KB) and never esbuild. stacks/bundles.ts applies it to the console function's
 * bundle; the stack names stacks/console-plugin.mjs, which loads it, in that function's `nodejs.plugins`.
 */
import type { Plugin } from 'esbuild';
import { buildConsole } from '../packages/console/src/build.ts';

export const CONSOLE_BUILD_MODULE = '@outbound/console/build';

export function consoleAssetsPlugin(): Plugin {
  return {
    name: 'outbound-console-assets',
    setup(build) {
      build.onResolve({ filter: /^@outbound\/console\/build$/ }, () => ({ path: 'assets', namespace: 'outbound-console' }));
      build.onLoad({ filter: /.*/, namespace: 'outbound-console' }, async () => {
        const assets = await buildConsole();
        return { loader: 'js', contents: `const assets = ${JSON.stringify(assets)};\nexport const buildConsole = async () => assets;\n` };
      });
    },
  };
}

export default [consoleAssetsPlugin()];
