import { describe, expect, it } from 'vitest';
import { eventually } from './fixtures.ts';
import { tail, waitFor } from './wait-for.ts';

describe('waitFor', () => {
  it('resolves with the first truthy value, taking falsy values and exceptions as not yet', async () => {
    let calls = 0;
    const got = await waitFor(
      async () => {
        calls++;
        if (calls === 1) return undefined;
        if (calls === 2) return 0;
        if (calls === 3) throw new Error('not written yet');
        return { line: 'Login: user=<a@b.test>' };
      },
      { timeoutMs: 5_000, intervalMs: 5, describe: 'the login line' },
    );
    expect(got).toEqual({ line: 'Login: user=<a@b.test>' });
    expect(calls).toBe(4);
  });

  it('takes a check that answers at once, without waiting', async () => {
    const started = Date.now();
    expect(await waitFor(() => 'ready', { timeoutMs: 5_000, intervalMs: 1_000, describe: 'ready' })).toBe('ready');
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('times out saying what it waited for, how long, the last value and what lastSeen shows', async () => {
    const log = ['saved mail to INBOX', 'another line'].join('\n');
    const err = await waitFor(() => log.includes('Login:'), {
      timeoutMs: 200,
      intervalMs: 20,
      describe: 'Dovecot to log the login',
      lastSeen: async () => `dovecot.log ends:\n${tail(log)}`,
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toMatch(/^timed out after \d+ ms waiting for Dovecot to log the login; the last check saw it returned false/);
    const waited = Number(/after (\d+) ms/.exec(message)![1]);
    expect(waited).toBeGreaterThanOrEqual(200);
    expect(message).toContain('dovecot.log ends:\nsaved mail to INBOX\nanother line');
  });

  it('on timeout names the last exception, and keeps it as the cause', async () => {
    const cause = new Error('ENOENT: no such file');
    const err = (await waitFor(
      () => {
        throw cause;
      },
      { timeoutMs: 100, intervalMs: 10, describe: 'the file' },
    ).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/waiting for the file; the last check saw it threw Error: ENOENT: no such file/);
    expect(err.cause).toBe(cause);
  });

  it('does not wait past the deadline for a check that never answers', async () => {
    const started = Date.now();
    const err = (await waitFor(() => new Promise(() => {}), { timeoutMs: 150, describe: 'a hung check' }).catch((e: Error) => e)) as Error;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(err.message).toMatch(/waiting for a hung check; the last check saw it threw Error: the first check had not answered/);
  });

  it('says so when lastSeen itself fails, and still times out with the description', async () => {
    const err = (await waitFor(() => false, {
      timeoutMs: 50,
      intervalMs: 10,
      describe: 'nothing',
      lastSeen: () => {
        throw new Error('log gone');
      },
    }).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/waiting for nothing;/);
    expect(err.message).toContain('(lastSeen threw Error: log gone)');
  });

  it('tail keeps the last lines and says how many it left out', () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    expect(tail(text, 3)).toBe('… (47 lines before)\nline 48\nline 49\nline 50');
    expect(tail('one\ntwo\n')).toBe('one\ntwo');
  });
});

describe('eventually, the older helper, on waitFor', () => {
  it('takes 0 and null as answers, and undefined and false as not yet', async () => {
    const answers = [undefined, false, 0];
    expect(await eventually(async () => answers.shift(), 5_000, 'a count')).toBe(0);
    expect(await eventually(async () => null, 5_000, 'null')).toBeNull();
  });

  it('ends at once on an exception from the check, and times out with what it waited for', async () => {
    const started = Date.now();
    await expect(
      eventually(
        async () => {
          throw new Error('the request failed');
        },
        10_000,
        'the row',
      ),
    ).rejects.toThrow('the request failed');
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(eventually(async () => undefined, 100, 'the reply')).rejects.toThrow(/^timed out after \d+ ms waiting for the reply/);
  });
});
