import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, SCHEMA_FILE, schemaSource } from './generate.ts';

describe('the client’s types (schema.ts)', () => {
  it('are what openapi-typescript makes from docs/openapi.json now (run `npm run client` after changing the API)', async () => {
    const document = readFileSync(OPENAPI_FILE, 'utf8');
    const fresh = await schemaSource(document);
    expect(
      readFileSync(SCHEMA_FILE, 'utf8') === fresh,
      'packages/client/src/schema.ts is out of date: run `npm run client` and commit it',
    ).toBe(true);
    // The check can tell: a document with a route more makes other types.
    const more = JSON.parse(document) as { paths: Record<string, unknown> };
    more.paths['/v1/example'] = { get: { operationId: 'getExample', responses: { '204': { description: 'Done' } } } };
    const changed = await schemaSource(JSON.stringify(more));
    expect(changed).not.toBe(fresh);
    expect(changed).toContain('getExample');
  });

  it('name each operation by its readable id', () => {
    const text = readFileSync(SCHEMA_FILE, 'utf8');
    for (const id of ['listCampaigns', 'createMailbox', 'launchCampaign', 'getConversation', 'sendMessage'])
      expect(text).toContain(`    ${id}: {`);
    expect(text).not.toMatch(/operations\["\w+_(get|post|patch|delete|put)_/);
  });
});

describe('the client', () => {
  it('bundles for a browser: index.ts reaches no Node module', async () => {
    const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
    const out = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent' });
    expect(out.errors).toEqual([]);
    expect(out.outputFiles[0]!.text).toContain('Bearer');
    // The check can fail: a Node import does not bundle for a browser.
    await expect(
      build({
        stdin: { contents: "import { readFileSync } from 'node:fs'; console.log(readFileSync);", resolveDir: dirOf(entry) },
        bundle: true,
        platform: 'browser',
        write: false,
        logLevel: 'silent',
      }),
    ).rejects.toThrow();
  });
});

const dirOf = (file: string) => file.slice(0, file.lastIndexOf('/'));
