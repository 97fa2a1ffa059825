/**
 * A local stand-in for the OpenAI and Anthropic HTTP APIs, enough for their
 * official SDKs: OpenAI `POST .../chat/completions`, Anthropic `POST .../messages`.
 * It records every request and answers as the current mode says.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AiStubMode = 'ok' | 'error500' | 'hang' | 'empty' | 'refusal';

export interface Recorded {
  method: string;
  path: string;
  /** Lower-case names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: any;
}

export interface AiStub {
  /** http://127.0.0.1:PORT */
  url: string;
  /** baseURL for the openai SDK, which appends /chat/completions. */
  openaiBaseUrl: string;
  /** baseURL for the Anthropic SDK, which appends /v1/messages. */
  anthropicBaseUrl: string;
  requests: Recorded[];
  setMode(mode: AiStubMode): void;
  setReply(reply: (prompt: string) => string): void;
  stop(): Promise<void>;
}

interface ChatMessage {
  role?: string;
  content?: unknown;
}

/** The text of the last user message, whichever API shaped it (string or content blocks). */
function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  const last = (messages as ChatMessage[]).filter((m) => m.role === 'user').at(-1);
  if (typeof last?.content === 'string') return last.content;
  if (Array.isArray(last?.content)) {
    return last.content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
  }
  return '';
}

function openaiAnswer(mode: AiStubMode, model: string, text: string): object {
  const refused = mode === 'refusal';
  return {
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: refused ? null : mode === 'empty' ? '' : text,
          refusal: refused ? 'I cannot help with that.' : null,
        },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function anthropicAnswer(mode: AiStubMode, model: string, text: string): object {
  return {
    id: 'msg_stub',
    type: 'message',
    role: 'assistant',
    model,
    content: mode === 'ok' ? [{ type: 'text', text }] : [],
    stop_reason: mode === 'refusal' ? 'refusal' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: mode === 'ok' ? 5 : 0 },
  };
}

export async function startAiStub(): Promise<AiStub> {
  const requests: Recorded[] = [];
  let mode: AiStubMode = 'ok';
  let reply = (prompt: string) => `AI: ${prompt}`;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });

      // Suffix match: '/v1/chat/completions' and '/chat/completions' (a baseURL with or without /v1) both work.
      const api = path.endsWith('/chat/completions') ? 'openai' : path.endsWith('/messages') ? 'anthropic' : undefined;
      const send = (status: number, payload: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== 'POST' || !api) return send(404, { error: { type: 'not_found_error', message: `no route ${path}` } });
      if (mode === 'hang') return; // never answers; stop() closes the socket
      if (mode === 'error500') {
        return send(
          500,
          api === 'openai'
            ? { error: { message: 'stub failure', type: 'server_error', code: null } }
            : { type: 'error', error: { type: 'api_error', message: 'stub failure' } },
        );
      }
      const model = typeof body?.model === 'string' ? body.model : 'stub-model';
      const text = reply(lastUserText(body?.messages));
      // A structured answer when one is asked for: OpenAI's json_schema response format, Anthropic's forced tool call.
      if (api === 'openai' && body?.response_format?.type === 'json_schema' && mode === 'ok')
        return send(200, openaiAnswer(mode, model, JSON.stringify({ choice: text })));
      const tool = body?.tool_choice?.type === 'tool' ? String(body.tool_choice.name) : undefined;
      if (api === 'anthropic' && tool && mode === 'ok') {
        return send(200, {
          ...anthropicAnswer(mode, model, ''),
          content: [{ type: 'tool_use', id: 'toolu_stub', name: tool, input: { choice: text } }],
          stop_reason: 'tool_use',
        });
      }
      send(200, api === 'openai' ? openaiAnswer(mode, model, text) : anthropicAnswer(mode, model, text));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    setMode: (m) => {
      mode = m;
    },
    setReply: (fn) => {
      reply = fn;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Hung requests (and idle keep-alive sockets) would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
