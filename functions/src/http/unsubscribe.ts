import { recipientOfToken, unsubscribe } from '@outbound/core/guardrails/unsubscribe';
import { httpHandler, type HttpResult } from '../lib/middleware.ts';
import { page, PAGE_HEADERS } from '../lib/page.ts';

/**
 * The built-in unsubscribe page (docs/api.md, Unsubscribe). GET only shows the
 * button: mail scanners open links, so opening one must change nothing. The
 * button's form POST and the RFC 8058 one-click POST
 * (`List-Unsubscribe=One-Click`) do the same thing, so the body is not read.
 */

const answer = (status: number, html: string): HttpResult => ({ status, html, headers: PAGE_HEADERS });

const ASK = page(
  'Unsubscribe',
  `<h1>Unsubscribe</h1>
<p>Press the button to stop all emails from us to your address.</p>
<form method="post"><button type="submit">Unsubscribe</button></form>`,
);

const DONE = page(
  'You are unsubscribed',
  `<h1>You are unsubscribed</h1>
<p>You will get no more emails from us. There is nothing else you need to do.</p>`,
);

const INVALID = page(
  'This link is not valid',
  `<h1>This link is not valid</h1>
<p>This unsubscribe link is incomplete or has been changed. Open the unsubscribe link in the email again, or reply to the email and ask us to stop.</p>`,
);

export const handler = httpHandler({
  'GET /unsubscribe/{token}': async ({ deps, params }) =>
    (await recipientOfToken(deps, params.token ?? '')) ? answer(200, ASK) : answer(400, INVALID),
  'POST /unsubscribe/{token}': async ({ deps, params }) =>
    (await unsubscribe(deps, params.token ?? '')).ok ? answer(200, DONE) : answer(400, INVALID),
});
