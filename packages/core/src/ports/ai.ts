/**
 * AI copy with the customer's own key (adapter: packages/mail/src/ai.ts over
 * the providers' official SDKs). Any failure throws; the send path then
 * falls back to the plain template, without the disclosure marker.
 */
export type AiProviderName = 'OPENAI' | 'ANTHROPIC';

export interface AiRequest {
  provider: AiProviderName;
  apiKey: string;
  /** Standing instructions (tone, format, what not to do). */
  system: string;
  /** The campaign's prompt with the lead's fields filled in. */
  prompt: string;
  maxTokens?: number;
}

export interface AiWriter {
  /** The generated text, trimmed; throws on timeout, refusal or an empty answer. */
  write(request: AiRequest): Promise<string>;
}
