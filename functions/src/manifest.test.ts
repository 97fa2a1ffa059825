import { describe, expect, it } from 'vitest';
import { allRoutes, functions, type FunctionDef } from './manifest.ts';

describe('the manifest and the handlers agree', () => {
  it('every route has an implementation in its function, and every implementation a route', async () => {
    for (const [name, def] of Object.entries(functions) as [string, FunctionDef][]) {
      if (!def.routes && !def.catchAll) continue;
      const mod = await import(`./${def.handler}`);
      const implemented = new Set<string>(mod.handler.routeKeys);
      const declared = new Set(
        allRoutes()
          .filter((r) => r.fn === name)
          .map((r) => r.key),
      );
      if (def.catchAll) declared.add('$default');
      expect([...implemented].sort(), name).toEqual([...declared].sort());
    }
  });

  it('every handler names exactly the kits its manifest entry uses (what its bundle carries is what its role allows)', async () => {
    for (const [name, def] of Object.entries(functions) as [string, FunctionDef][]) {
      const mod = await import(`./${def.handler}`);
      expect([...mod.handler.kits].sort(), name).toEqual([...(def.uses ?? [])].sort());
    }
  });

  it('names each route once', () => {
    const keys = allRoutes().map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('leaves public exactly the routes docs/api.md names public', () => {
    const open = allRoutes()
      .filter((r) => r.public)
      .map((r) => r.key)
      .sort();
    const allowed = [
      'POST /v1/auth/login',
      'GET /v1/oauth/{provider}/authorize',
      'GET /v1/oauth/{provider}/callback',
      'POST /v1/leads/webhook',
      'GET /public/domain-check',
      'GET /unsubscribe/{token}',
      'POST /unsubscribe/{token}',
      'PUT /v1/instance-settings', // removed: answers 410 to anyone
      'GET /v1/openapi.json', // the API's machine-readable description
      'GET /', // the console's page: it holds no data, its API calls carry the token
      'GET /console/{file}', // the console's script and stylesheet
    ];
    for (const key of open) expect(allowed).toContain(key);
    // And every one of them is public: the list is the whole of who needs no token.
    expect(open).toEqual([...allowed].sort());
  });
});
