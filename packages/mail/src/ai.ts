import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { EngineError } from '@outbound/core/errors';
import type { AiChoiceRequest, AiProviderName, AiRequest, AiWriter } from '@outbound/core/ports/ai';

export interface AiWriterOptions {
  /** Base URL for the openai SDK (normally ends in /v1); undefined => SDK default (OPENAI_BASE_URL, then api.openai.com). */
  openaiBaseUrl?: string;
  /** Base URL for the Anthropic SDK (without /v1); undefined => SDK default (ANTHROPIC_BASE_URL, then api.anthropic.com). */
  anthropicBaseUrl?: string;
  /** Per attempt, so the worst case is about (1 + maxRetries) * timeoutMs plus the SDK's backoff. */
  timeoutMs?: number;
  /** Retries the SDK makes on timeouts, connection errors, 408/409/429 and 5xx; clamped to 0..5. */
  maxRetries?: number;
  openaiModel?: string;
  anthropicModel?: string;
}

/**
 * A failed AI call. The message names the provider and the status or kind of
 * failure only: never the key, never the provider's own wording (which can
 * quote part of a key, as OpenAI's 401 does).
 */
export class AiWriteError extends EngineError {
  constructor(provider: AiProviderName, reason: string, status?: number) {
    super('UNAVAILABLE', `${provider} could not write the email: ${reason}.`, { provider, status });
  }
}

const DEFAULT_MAX_TOKENS = 800;

/** The AiWriter over the providers' official SDKs, one client per call because the key is the customer's. */
export function aiWriter(opts: AiWriterOptions = {}): AiWriter {
  const timeout = Math.max(1, Math.floor(opts.timeoutMs ?? 20_000));
  const maxRetries = Math.min(5, Math.max(0, Math.floor(opts.maxRetries ?? 2)));
  const models = { OPENAI: opts.openaiModel ?? 'gpt-4o-mini', ANTHROPIC: opts.anthropicModel ?? 'claude-haiku-4-5' };

  // null, not undefined: keeps the SDK from picking up the operator's OPENAI_ADMIN_KEY / ORG / PROJECT.
  const openaiClient = (apiKey: string) =>
    new OpenAI({ apiKey, adminAPIKey: null, organization: null, project: null, baseURL: opts.openaiBaseUrl, timeout, maxRetries });
  const anthropicClient = (apiKey: string) => new Anthropic({ apiKey, baseURL: opts.anthropicBaseUrl, timeout, maxRetries });

  async function openai(req: AiRequest): Promise<string> {
    const client = openaiClient(req.apiKey);
    const res = await client.chat.completions.create({
      model: models.OPENAI,
      max_completion_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: [
        { role: 'system', content: req.system },
        { role: 'user', content: req.prompt },
      ],
    });
    const choice = res.choices[0];
    if (choice?.message.refusal || choice?.finish_reason === 'content_filter') throw new AiWriteError('OPENAI', 'the model refused');
    return choice?.message.content ?? '';
  }

  async function anthropic(req: AiRequest): Promise<string> {
    const client = anthropicClient(req.apiKey);
    const res = await client.messages.create({
      model: models.ANTHROPIC,
      max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
      system: req.system,
      messages: [{ role: 'user', content: req.prompt }],
    });
    if (res.stop_reason === 'refusal') throw new AiWriteError('ANTHROPIC', 'the model refused');
    return res.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  }

  /** The one-field object both providers are held to: `choice`, one of the allowed answers. */
  const choiceSchema = (choices: readonly string[]) => ({
    type: 'object' as const,
    properties: { choice: { type: 'string' as const, enum: [...choices] } },
    required: ['choice'],
    additionalProperties: false,
  });

  async function openaiChoice(req: AiChoiceRequest): Promise<unknown> {
    const client = openaiClient(req.apiKey);
    // Structured Outputs (strict JSON schema): the model can only answer one of the choices.
    const res = await client.chat.completions.create({
      model: models.OPENAI,
      max_completion_tokens: 50,
      response_format: { type: 'json_schema', json_schema: { name: 'choice', strict: true, schema: choiceSchema(req.choices) } },
      messages: [
        { role: 'system', content: req.system },
        { role: 'user', content: req.prompt },
      ],
    });
    const choice = res.choices[0];
    if (choice?.message.refusal || choice?.finish_reason === 'content_filter') throw new AiWriteError('OPENAI', 'the model refused');
    return JSON.parse(choice?.message.content ?? 'null');
  }

  async function anthropicChoice(req: AiChoiceRequest): Promise<unknown> {
    const client = anthropicClient(req.apiKey);
    // A forced tool call whose input schema is the choice: Anthropic's way to hold the answer to a schema.
    const res = await client.messages.create({
      model: models.ANTHROPIC,
      max_tokens: 100,
      system: req.system,
      tools: [{ name: 'choose', description: 'Give the one answer that fits.', input_schema: choiceSchema(req.choices) }],
      tool_choice: { type: 'tool', name: 'choose' },
      messages: [{ role: 'user', content: req.prompt }],
    });
    if (res.stop_reason === 'refusal') throw new AiWriteError('ANTHROPIC', 'the model refused');
    const call = res.content.find((block) => block.type === 'tool_use');
    return call?.type === 'tool_use' ? call.input : null;
  }

  return {
    async choose(req) {
      if (!req.apiKey) throw new AiWriteError(req.provider, 'no API key');
      let answer: unknown;
      try {
        answer = req.provider === 'OPENAI' ? await openaiChoice(req) : await anthropicChoice(req);
      } catch (err) {
        throw err instanceof AiWriteError
          ? err
          : err instanceof SyntaxError
            ? new AiWriteError(req.provider, 'the answer was not JSON')
            : describe(req.provider, err);
      }
      const choice = (answer as { choice?: unknown } | null)?.choice;
      if (typeof choice !== 'string' || !choice) throw new AiWriteError(req.provider, 'the answer named no choice');
      return choice;
    },

    async write(req) {
      if (!req.apiKey) throw new AiWriteError(req.provider, 'no API key');
      let text: string;
      try {
        text = req.provider === 'OPENAI' ? await openai(req) : await anthropic(req);
      } catch (err) {
        throw err instanceof AiWriteError ? err : describe(req.provider, err);
      }
      const trimmed = text.trim();
      if (!trimmed) throw new AiWriteError(req.provider, 'the answer was empty');
      return trimmed;
    },
  };
}

function describe(provider: AiProviderName, err: unknown): AiWriteError {
  const sdk = provider === 'OPENAI' ? OpenAI : Anthropic;
  if (err instanceof sdk.APIConnectionTimeoutError) return new AiWriteError(provider, 'the request timed out');
  if (err instanceof sdk.APIConnectionError) return new AiWriteError(provider, 'the service could not be reached');
  if (err instanceof sdk.APIError && typeof err.status === 'number') {
    return new AiWriteError(provider, `the service answered ${err.status}`, err.status);
  }
  return new AiWriteError(provider, 'the request failed');
}
