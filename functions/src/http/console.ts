import { buildConsole, type ConsoleAssets } from '@outbound/console/build';
import { NotFoundError } from '@outbound/core/errors';
import { consoleCsp, uploadsOrigin } from '../lib/console-csp.ts';
import { httpHandler, type HttpResult } from '../lib/middleware.ts';

/**
 * The operator console (docs/architecture.md, The console): the page at `/` and
 * its script and stylesheet under /console/. They hold no data (every API call
 * they make carries the user's token), so the routes are public. Locally the
 * files are built at the first request; in a Lambda bundle the build's result
 * is already in place of buildConsole (stacks/console-plugin.ts).
 */
let assets: Promise<ConsoleAssets> | undefined;
const built = () => (assets ??= buildConsole().catch((err) => ((assets = undefined), Promise.reject(err))));

// Read once: the bucket is fixed for the function's life.
const HEADERS = {
  'content-security-policy': consoleCsp(uploadsOrigin(process.env)),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-robots-tag': 'noindex',
};

export const handler = httpHandler({
  // The page names the current files, so it is checked each time; the files themselves never change under a name.
  'GET /': async () => ({ status: 200, html: (await built()).html, headers: { ...HEADERS, 'cache-control': 'no-cache' } }),
  'GET /console/{file}': async ({ params }): Promise<HttpResult> => {
    const { files } = await built();
    // Own names only: `constructor` or `__proto__` must not find Object.prototype's.
    const file = Object.hasOwn(files, params.file ?? '') ? files[params.file!] : undefined;
    if (!file) throw new NotFoundError('There is no such file in the console.');
    return {
      status: 200,
      text: file.body,
      headers: { ...HEADERS, 'content-type': file.contentType, 'cache-control': 'public, max-age=31536000, immutable' },
    };
  },
});
