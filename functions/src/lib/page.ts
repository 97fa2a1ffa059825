/**
 * The engine's few HTML pages (the unsubscribe page, the OAuth connection
 * result): one small accessible layout, no scripts, no outside assets.
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

/** HTML-escapes text that did not come from this file (an address, a sentence naming one). */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A whole page around `content` (trusted markup: callers escape what they put in it). */
export const page = (title: string, content: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;

/** Headers every page gets: never cached or indexed, no referrer (links carry tokens), no framing, no scripts. */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};
