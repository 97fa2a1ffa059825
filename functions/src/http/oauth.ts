import { EngineError } from '@outbound/core/errors';
import { authorize, callback } from '@outbound/core/oauth/index';
import { httpHandler, type HttpResult } from '../lib/middleware.ts';
import { escapeHtml, page, PAGE_HEADERS } from '../lib/page.ts';

/**
 * Connecting a Google or Microsoft mailbox (docs/oauth.md). Both routes are
 * public: authorize is opened by the person connecting the mailbox, and the
 * callback is where the provider sends their browser back, verified by the
 * signed state. The callback answers pages, not JSON: a browser lands on it.
 */
const answer = (status: number, title: string, sentence: string): HttpResult => ({
  status,
  html: page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(sentence)}</p>`),
  headers: PAGE_HEADERS,
});

export const handler = httpHandler({
  'GET /v1/oauth/{provider}/authorize': async ({ deps, params, query }) => ({
    status: 302,
    headers: {
      location: await authorize(deps, params.provider ?? '', query),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    },
  }),
  'GET /v1/oauth/{provider}/callback': async ({ deps, params, query }) => {
    try {
      const { email } = await callback(deps, params.provider ?? '', query);
      return answer(
        200,
        'Mailbox connected',
        `${email} is connected. The engine can now send from it and read its replies. You can close this page.`,
      );
    } catch (err) {
      // Every refusal is a page in plain words; nothing was changed. Faults stay faults (a 500 and the log).
      if (err instanceof EngineError && err.code !== 'UNAVAILABLE' && err.code !== 'SECRET_UNREADABLE') {
        return answer(400, 'The mailbox was not connected', err.message);
      }
      throw err;
    }
  },
});
