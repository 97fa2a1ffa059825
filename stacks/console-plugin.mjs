/**
 * The esbuild plugins SST's build of the console function runs (the stack
 * names this file in that function's `nodejs.plugins`). SST loads it with plain
 * Node, which cannot import TypeScript: tsx's loader is registered first, then
 * the plugin itself (stacks/console-plugin.ts) is imported as the tests import it.
 */
import { register } from 'tsx/esm/api';

register();
const { consoleAssetsPlugin } = await import('./console-plugin.ts');

export default [consoleAssetsPlugin()];
