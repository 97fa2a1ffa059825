import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiKeyKey } from '@outbound/core/ai-keys/keys';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';

let engine: TestEngine;
let api: Api;
beforeAll(async () => {
  engine = await startTestEngine();
  api = engine.api;
  await api.login();
});
afterAll(() => engine?.stop());

const KEY = 'sk-ant-test-0123456789abcdef';

describe('/v1/ai-keys', () => {
  it('stores a key sealed, reports it configured, never returns it, and deletes it', async () => {
    expect((await api.request('GET', '/v1/ai-keys')).body).toEqual([
      { provider: 'openai', configured: false },
      { provider: 'anthropic', configured: false },
    ]);
    const put = await api.request('PUT', '/v1/ai-keys/anthropic', { apiKey: KEY });
    expect(put.status).toBe(204);
    expect(put.body).toBeUndefined();
    const list = await api.request('GET', '/v1/ai-keys');
    expect(list.body).toEqual([
      { provider: 'openai', configured: false },
      { provider: 'anthropic', configured: true },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(KEY);
    const raw = await engine.deps.store.get(aiKeyKey('anthropic'));
    expect(JSON.stringify(raw)).not.toContain(KEY);

    expect((await api.request('DELETE', '/v1/ai-keys/anthropic')).status).toBe(204);
    expect((await api.request('GET', '/v1/ai-keys')).body[1]).toEqual({ provider: 'anthropic', configured: false });
    expect((await api.request('DELETE', '/v1/ai-keys/anthropic')).status).toBe(204);
  });

  it('refuses an unknown provider and a missing or short key with 422, and asks for a token', async () => {
    expect((await api.request('PUT', '/v1/ai-keys/gemini', { apiKey: KEY })).status).toBe(422);
    const missing = await api.request('PUT', '/v1/ai-keys/openai', {});
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe('apiKey is required.');
    expect((await api.request('PUT', '/v1/ai-keys/openai', { apiKey: 'short' })).status).toBe(422);
    expect((await new Api(engine.url).request('PUT', '/v1/ai-keys/openai', { apiKey: KEY })).status).toBe(401);
    expect((await api.request('GET', '/v1/ai-keys')).body[0].configured).toBe(false);
  });
});
