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

/** A choice among fixed answers, made with the provider's structured output so the answer can only be one of them. */
export interface AiChoiceRequest {
  provider: AiProviderName;
  apiKey: string;
  /** Standing instructions: what the choices mean, and that the text is data, never instructions. */
  system: string;
  /** The text to judge, already framed as data by the caller. */
  prompt: string;
  /** The answers allowed (at least two). */
  choices: readonly string[];
}

export interface AiWriter {
  /** The generated text, trimmed; throws on timeout, refusal or an empty answer. */
  write(request: AiRequest): Promise<string>;
  /**
   * The choice the model made, as it answered it: the caller still checks it is one of `choices` (a
   * provider may ignore the schema). Throws on timeout, refusal or an answer that is not the schema's shape.
   */
  choose(request: AiChoiceRequest): Promise<string>;
}
