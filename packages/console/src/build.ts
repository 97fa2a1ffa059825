/**
 * Builds the console's static files in memory with esbuild: one script, one
 * stylesheet and the page that names them. The local runtime calls this at
 * the first request; a Lambda bundle gets its result instead (stacks/console-plugin.ts
 * puts the built files in place of this module), so both serve the same bytes.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface ConsoleFile {
  contentType: string;
  body: string;
}

export interface ConsoleAssets {
  /** The page served at `/`. */
  html: string;
  /** Every other file, by its name under /console/ (names carry a content hash, so they may be cached for good). */
  files: Record<string, ConsoleFile>;
  /** Compressed size of the script the first load takes, in bytes (the budget is 200 KB). */
  firstLoadGzipBytes: number;
}

const SRC = import.meta.dirname;

/** The first load's compressed script may not exceed this (checked by the build and its test). */
export const FIRST_LOAD_BUDGET_BYTES = 200 * 1024;

/** A small icon of its own, so the browser's request for one finds it (and asks no other host). */
const ICON = 'icon-1.svg';
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5cd5"/><path d="M3 5l5 4 5-4v7H3z" fill="#fff"/></svg>';

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

export async function buildConsole(): Promise<ConsoleAssets> {
  // Imported here, not at the top: a Lambda bundle never runs this function, and must not carry esbuild.
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [resolve(SRC, 'main.tsx')],
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outfile: 'app.js',
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const script = out.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
  const style = await readFile(resolve(SRC, 'app.css'), 'utf8');
  const js = `app-${hashOf(script)}.js`;
  const css = `app-${hashOf(style)}.css`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Outbound</title>
<link rel="icon" href="/console/${ICON}">
<link rel="stylesheet" href="/console/${css}">
<script type="module" src="/console/${js}"></script>
</head>
<body>
<div id="app"><noscript>The Outbound console needs JavaScript.</noscript></div>
</body>
</html>
`;
  return {
    html,
    files: {
      [js]: { contentType: 'text/javascript; charset=utf-8', body: script },
      [css]: { contentType: 'text/css; charset=utf-8', body: style },
      [ICON]: { contentType: 'image/svg+xml', body: ICON_SVG },
    },
    firstLoadGzipBytes: gzipSync(script, { level: 9 }).length,
  };
}
