import { describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildConsole, FIRST_LOAD_BUDGET_BYTES } from './build.ts';

describe('the console build', () => {
  it('keeps the first load under 200 KB of compressed JavaScript, in one script the page names', async () => {
    const assets = await buildConsole();
    const scripts = Object.entries(assets.files).filter(([, f]) => f.contentType.startsWith('text/javascript'));
    expect(scripts).toHaveLength(1);
    const [name, script] = scripts[0]!;
    expect(assets.html).toContain(`src="/console/${name}"`);
    expect(assets.firstLoadGzipBytes).toBe(gzipSync(script.body, { level: 9 }).length);
    expect(assets.firstLoadGzipBytes).toBeLessThan(FIRST_LOAD_BUDGET_BYTES);
    console.log(
      `console first load: ${(assets.firstLoadGzipBytes / 1024).toFixed(1)} KiB gzip (${(script.body.length / 1024).toFixed(1)} KiB minified)`,
    );
  });

  it('names every file by its content and puts no script or style inline in the page', async () => {
    const assets = await buildConsole();
    for (const name of Object.keys(assets.files)) expect(name).toMatch(/^[\w.-]+\.(js|css|svg)$/);
    expect(assets.html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(assets.html).not.toMatch(/<style|\sstyle=|\son\w+=/);
  });

  it('never turns a string into markup: the console’s own code sets no HTML, so Preact renders everything from the API as text', async () => {
    const dir = import.meta.dirname;
    const sources = (await readdir(dir, { recursive: true })).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.test.ts'));
    expect(sources.length).toBeGreaterThan(5);
    for (const file of sources) {
      const text = await readFile(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(
        /dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/,
      );
    }
  });
});
