import { inspect } from 'node:util';

export interface WaitForOptions {
  /** How long to keep trying, in ms of real time. */
  timeoutMs: number;
  /** The pause between two checks (100 ms unless told). */
  intervalMs?: number;
  /** What is waited for, as the timeout's message should name it: `Dovecot to log the XOAUTH2 login`. */
  describe: string;
  /** More to show on timeout, read then: the tail of a server's log, what a receiver got. */
  lastSeen?: () => unknown;
}

/** A value the check counts as "not yet". */
type NotYet = undefined | null | false | 0 | '';

/**
 * Polls `check` until it returns (or resolves to) a truthy value, and resolves with that value. A falsy value
 * or an exception means "not yet": a server's log read before the line is written, a row not stored yet.
 * At the deadline it rejects with an Error that says what was waited for, for how long, what the last check
 * returned or threw, and what `lastSeen` shows. A check still running at the deadline is not waited for.
 *
 * For the effects a test cannot be told about (a line another process writes, a message a server receives,
 * a row a worker stores): wait for the effect itself, never for a fixed time.
 */
export async function waitFor<T>(check: () => T | Promise<T>, opts: WaitForOptions): Promise<Exclude<Awaited<T>, NotYet>> {
  const { timeoutMs, intervalMs = 100, describe } = opts;
  const started = Date.now();
  const deadline = started + timeoutMs;
  let last: { value: unknown } | { error: unknown } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), timeoutMs);
  });
  try {
    for (let checks = 0; ; checks++) {
      const outcome = await Promise.race([
        (async () => {
          try {
            return { value: await check() };
          } catch (error) {
            return { error };
          }
        })(),
        expired,
      ]);
      if (outcome === 'expired') {
        if (!last) last = { error: new Error('the first check had not answered') };
        break;
      }
      last = outcome;
      if ('value' in outcome && outcome.value) return outcome.value as Exclude<Awaited<T>, NotYet>;
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
    }
  } finally {
    clearTimeout(timer);
  }
  throw await timedOut(describe, Date.now() - started, last, opts.lastSeen);
}

async function timedOut(
  describe: string,
  waitedMs: number,
  last: { value: unknown } | { error: unknown } | undefined,
  lastSeen: (() => unknown) | undefined,
): Promise<Error> {
  const saw = !last ? 'nothing' : 'error' in last ? `it threw ${show(last.error)}` : `it returned ${show(last.value)}`;
  let message = `timed out after ${waitedMs} ms waiting for ${describe}; the last check saw ${saw}`;
  if (lastSeen) {
    let extra: string;
    try {
      const seen = await lastSeen();
      extra = typeof seen === 'string' ? seen : show(seen);
    } catch (err) {
      extra = `(lastSeen threw ${show(err)})`;
    }
    message += `\nlast seen:\n${extra}`;
  }
  return new Error(message, last && 'error' in last ? { cause: last.error } : undefined);
}

const LIMIT = 4000;

function show(value: unknown): string {
  const text = value instanceof Error ? `${value.name}: ${value.message}` : inspect(value, { depth: 4, breakLength: 120 });
  return text.length > LIMIT ? `${text.slice(0, LIMIT)}… (${text.length - LIMIT} more characters)` : text;
}

/** The last `lines` lines of `text`, for a `lastSeen` that shows a log. */
export function tail(text: string, lines = 30): string {
  const all = text.trimEnd().split('\n');
  return (all.length > lines ? [`… (${all.length - lines} lines before)`, ...all.slice(-lines)] : all).join('\n');
}
