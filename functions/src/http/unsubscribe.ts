import { recipientOfToken, unsubscribe } from '@outbound/core/guardrails/unsubscribe';
import { httpHandler, type HttpResult } from '../lib/middleware.ts';

/**
 * The built-in unsubscribe page (decisions.md, Mail). GET only shows the
 * button: mail scanners open links, so opening one must change nothing. The
 * button's form POST and the RFC 8058 one-click POST
 * (`List-Unsubscribe=One-Click`) do the same thing, so the body is not read.
 */

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:1.0625rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f7f9}
main{max-width:30rem;margin:12vh auto 2rem;padding:2rem 1.5rem;background:#fff;border:1px solid #d8dde3;border-radius:.75rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}
p{margin:0 0 1.25rem}
main>:last-child{margin-bottom:0}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.6rem 1.5rem;border:0;border-radius:.5rem;background:#0b5cd5;color:#fff;cursor:pointer}
button:hover{background:#0847a6}
button:focus-visible{outline:3px solid #0b5cd5;outline-offset:3px}
@media (max-width:32rem){main{margin:0;min-height:100vh;border:0;border-radius:0}button{width:100%}}
`;

/** Fixed text only: nothing from the request or the lead reaches the page, so there is nothing to escape. */
const page = (title: string, content: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;

const HEADERS = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  // The token in the URL must not travel on to other sites.
  'referrer-policy': 'no-referrer',
  // No scripts, no outside assets, and no framing (a framed button could be clicked by trickery).
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

const answer = (status: number, html: string): HttpResult => ({ status, html, headers: HEADERS });

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
