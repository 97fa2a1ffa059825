import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Runs a TypeScript file with tsx as the project's scripts do. */
export function runTs(file: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, file), ...args], {
    cwd: ROOT,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Waits for the process to end and returns what it printed. */
export function finished(child: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (err += d));
  return new Promise((done) => child.on('exit', (code) => done({ code, out, err })));
}

/** Waits until the process prints a line matching `pattern`, and returns the match. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  return new Promise((ok, fail) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error(`no line matching ${pattern} within ${timeoutMs} ms; saw: ${seen}`)), timeoutMs);
    const look = (d: Buffer) => {
      seen += d;
      const m = seen.match(pattern);
      if (m) {
        clearTimeout(timer);
        ok(m);
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', (d) => (seen += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`process ended (${code}) before printing ${pattern}: ${seen}`));
    });
  });
}

/**
 * The engine (test/helpers/engine-process.ts, given `options` as JSON) in a process group of its own, so a SIGKILL
 * of the group takes its DynamoDB Local with it, as a power cut would. Resolves once it listens, with its URL.
 */
export async function startEngineProcess(options: Record<string, unknown>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'test/helpers/engine-process.ts'), JSON.stringify(options)], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  const [, url] = await waitForLine(child, /listening (\S+)/, 90_000);
  return { child, url: url! };
}
