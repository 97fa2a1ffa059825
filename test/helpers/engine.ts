import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { ManualClock } from '@outbound/core/ports/clock';
import type { Fields } from '@outbound/core/log';
import { startEngine, type Engine, type EngineOptions } from '@outbound/local/engine';
import { assertLocal } from '@outbound/local/dynamo-local';
import { openApiChecker, registerEngine } from './openapi-check.ts';

export const ADMIN = { email: 'admin@outbound.test', password: 'correct horse battery' };

export interface TestEngine extends Engine {
  wallClock: ManualClock;
  logs: Fields[];
  api: Api;
}

/**
 * The whole local runtime on port 0, on the run's shared DynamoDB Local (a
 * fresh table unless one is named), with the wall clock in the test's hands.
 */
export async function startTestEngine(opts: EngineOptions & { wallClock?: ManualClock; realTime?: boolean } = {}): Promise<TestEngine> {
  const dynamoEndpoint = opts.dataDir && opts.dataDir !== 'memory' ? undefined : inject('dynamoEndpoint');
  if (dynamoEndpoint) assertLocal(dynamoEndpoint);
  // Sending tests need time to pass by itself (the engine clock runs from the wall clock); the rest move it by hand.
  const wallClock = opts.wallClock ?? (opts.realTime ? undefined : new ManualClock(Date.now()));
  const logs: Fields[] = [];
  const engine = await startEngine({
    port: 0,
    dataDir: 'memory',
    tableName: `t-${randomUUID()}`,
    dynamoEndpoint,
    dynamoCredentials: dynamoEndpoint ? inject('dynamoCredentials') : undefined,
    admin: ADMIN,
    rateLimits: false,
    sink: (line) => logs.push(line),
    ...opts,
    wallClock,
  });
  return Object.assign(engine, { wallClock: wallClock ?? new ManualClock(0), logs, api: new Api(engine.url) });
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * A small client that speaks to the engine as curl would. Every answer is
 * held to the OpenAPI document (status and body) before the test sees it.
 */
export class Api {
  token?: string;
  constructor(readonly url: string) {
    registerEngine(url);
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const res = await fetch(this.url + path, {
      method,
      headers: {
        ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    openApiChecker().assert({
      method,
      path: new URL(this.url + path).pathname,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      text,
      location: res.headers.get('location'),
    });
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  async login(credentials = ADMIN): Promise<string> {
    const res = await this.request('POST', '/v1/auth/login', credentials);
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.token = res.body.token;
    return this.token!;
  }
}
