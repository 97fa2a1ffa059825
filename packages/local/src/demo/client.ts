/** The engine's HTTP API, as any client would use it. */
import { setTimeout as sleep } from 'node:timers/promises';
import { DemoError, say } from './output.ts';

export interface Answer {
  status: number;
  body: any;
}

export class Client {
  token?: string;
  constructor(readonly url: string) {}

  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.url + path, {
          method,
          headers: {
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (err) {
        throw new DemoError(`The engine at ${this.url} did not answer ${method} ${path} (${(err as Error).message}).`);
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      // The engine limits requests per minute; wait out a 429 once rather than fail.
      // A refused sign-in is not waited out: it means too many attempts, which the caller explains.
      if (res.status === 429 && attempt === 0 && path !== '/v1/auth/login') {
        const wait = Math.min(Number((parsed as { retryAfterMs?: number })?.retryAfterMs ?? 5_000), 60_000);
        say(`  (the engine's rate limit answered 429: waiting ${Math.ceil(wait / 1000)} s)`);
        await sleep(wait);
        continue;
      }
      return { status: res.status, body: parsed };
    }
  }

  /** The answer's body when the status is the expected one, else a DemoError naming the step. */
  async expect(what: string, status: number, method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.request(method, path, body);
    if (res.status !== status) {
      const error = typeof res.body === 'object' && res.body && 'error' in res.body ? res.body.error : JSON.stringify(res.body);
      throw new DemoError(`${what} failed: the engine answered ${res.status}: ${error}`);
    }
    return res.body;
  }
}

/** Whether an Outbound engine answers at `url` (its queue status wants a token: 401). */
export async function probe(url: string): Promise<'engine' | 'other' | 'nothing'> {
  try {
    const res = await fetch(`${url}/v1/queue/status`, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status === 401 ? 'engine' : 'other';
  } catch {
    return 'nothing';
  }
}
