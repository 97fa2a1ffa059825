import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AiRequest } from '@outbound/core/ports/ai';
import { aiWriter } from '@outbound/mail/ai';
import { startAiStub, type AiStub } from '../helpers/ai-stub.ts';

const KEY = 'sk-test-secret-key-0123456789';

let stub: AiStub;
beforeAll(async () => {
  stub = await startAiStub();
});
afterAll(() => stub.stop());
beforeEach(() => {
  stub.requests.length = 0;
  stub.setMode('ok');
  stub.setReply((prompt) => `AI: ${prompt}`);
});

function writer(o: { timeoutMs?: number; maxRetries?: number } = {}) {
  return aiWriter({ openaiBaseUrl: stub.openaiBaseUrl, anthropicBaseUrl: stub.anthropicBaseUrl, ...o });
}

function request(provider: AiRequest['provider']): AiRequest {
  return { provider, apiKey: KEY, system: 'Write short, plain emails.', prompt: 'Say hello to Ada at Acme.' };
}

/** The rejection, checked to be an Error that does not carry the key. */
async function failure(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).not.toContain(KEY);
  expect(JSON.stringify(err)).not.toContain(KEY);
  return err as Error;
}

describe.each(['OPENAI', 'ANTHROPIC'] as const)('aiWriter with the %s SDK against the stub', (provider) => {
  it('fails on a 500 after exactly 1 + maxRetries attempts', async () => {
    stub.setMode('error500');
    const err = await failure(writer({ maxRetries: 1 }).write(request(provider)));
    expect(err.message).toMatch(/500/);
    expect(stub.requests).toHaveLength(2);
  });

  it('gives up on a server that never answers', async () => {
    stub.setMode('hang');
    const started = Date.now();
    const err = await failure(writer({ timeoutMs: 500, maxRetries: 0 }).write(request(provider)));
    expect(err.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(stub.requests).toHaveLength(1);
  });

  it('fails on an empty answer', async () => {
    stub.setMode('empty');
    await failure(writer().write(request(provider)));
  });

  it('fails on a whitespace-only answer', async () => {
    stub.setReply(() => '  \n ');
    await failure(writer().write(request(provider)));
  });

  it('fails on a refusal', async () => {
    stub.setMode('refusal');
    const err = await failure(writer().write(request(provider)));
    expect(err.message).toMatch(/refused/);
  });
});

describe('aiWriter requests', () => {
  it('OpenAI: sends the bearer key, the model and both messages; returns the text trimmed', async () => {
    stub.setReply((prompt) => `  AI: ${prompt}\n`);
    const text = await writer().write(request('OPENAI'));
    expect(text).toBe('AI: Say hello to Ada at Acme.');

    expect(stub.requests).toHaveLength(1);
    const [seen] = stub.requests;
    expect(seen?.path).toBe('/v1/chat/completions');
    expect(seen?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen?.body.model).toBe('gpt-4o-mini');
    expect(seen?.body.messages).toEqual([
      { role: 'system', content: 'Write short, plain emails.' },
      { role: 'user', content: 'Say hello to Ada at Acme.' },
    ]);
  });

  it('Anthropic: sends the key, the system prompt and the user message', async () => {
    const text = await writer().write(request('ANTHROPIC'));
    expect(text).toBe('AI: Say hello to Ada at Acme.');

    expect(stub.requests).toHaveLength(1);
    const [seen] = stub.requests;
    expect(seen?.path).toBe('/v1/messages');
    // @anthropic-ai/sdk 1.x sends the key as a bearer token (0.x sent x-api-key); accept either, require exactly one.
    const sent = [seen?.headers['x-api-key'], seen?.headers.authorization].filter(Boolean);
    expect(sent).toHaveLength(1);
    expect([KEY, `Bearer ${KEY}`]).toContain(sent[0]);
    expect(seen?.headers['anthropic-version']).toBeTruthy();
    expect(seen?.body.model).toBe('claude-haiku-4-5');
    expect(seen?.body.system).toBe('Write short, plain emails.');
    expect(seen?.body.max_tokens).toBeGreaterThan(0);
    expect(seen?.body.messages).toEqual([{ role: 'user', content: 'Say hello to Ada at Acme.' }]);
  });

  it('uses the model options and maxTokens', async () => {
    const w = aiWriter({
      openaiBaseUrl: stub.openaiBaseUrl,
      anthropicBaseUrl: stub.anthropicBaseUrl,
      openaiModel: 'gpt-x',
      anthropicModel: 'claude-x',
    });
    await w.write({ ...request('OPENAI'), maxTokens: 123 });
    await w.write({ ...request('ANTHROPIC'), maxTokens: 45 });
    expect(stub.requests.map((r) => r.body.model)).toEqual(['gpt-x', 'claude-x']);
    expect(stub.requests[0]?.body.max_completion_tokens).toBe(123);
    expect(stub.requests[1]?.body.max_tokens).toBe(45);
  });

  it('refuses an empty key without calling out', async () => {
    await failure(writer().write({ ...request('OPENAI'), apiKey: '' }));
    await failure(writer().write({ ...request('ANTHROPIC'), apiKey: '' }));
    expect(stub.requests).toHaveLength(0);
  });
});

describe.each(['OPENAI', 'ANTHROPIC'] as const)('aiWriter.choose with the %s SDK against the stub', (provider) => {
  const ask = (choices = ['INTERESTED', 'NOT_INTERESTED', 'NEEDS_REVIEW']) =>
    writer({ maxRetries: 0 }).choose({
      provider,
      apiKey: KEY,
      system: 'Sort the reply.',
      prompt: '<reply>\nYes, call me.\n</reply>',
      choices,
    });

  it('holds the model to the choices with the provider’s structured output, and answers the choice', async () => {
    stub.setReply(() => 'INTERESTED');
    expect(await ask()).toBe('INTERESTED');
    const [req] = stub.requests;
    const schema = provider === 'OPENAI' ? req!.body.response_format.json_schema.schema : req!.body.tools[0].input_schema;
    expect(schema.properties.choice.enum).toEqual(['INTERESTED', 'NOT_INTERESTED', 'NEEDS_REVIEW']);
    if (provider === 'OPENAI') expect(req!.body.response_format.json_schema.strict).toBe(true);
    else expect(req!.body.tool_choice).toEqual({ type: 'tool', name: req!.body.tools[0].name });
    expect(JSON.stringify(req!.body)).not.toContain(KEY);
  });

  it('passes on what the model answered (the caller checks it), and fails plainly on a provider error or a refusal', async () => {
    stub.setReply(() => 'MAYBE');
    expect(await ask()).toBe('MAYBE');
    stub.setMode('error500');
    expect((await failure(ask())).message).toMatch(/500/);
    stub.setMode('refusal');
    expect((await failure(ask())).message).toMatch(/refused|no choice/);
  });
});
