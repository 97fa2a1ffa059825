import { describe, expect, it } from 'vitest';
import { rollup } from './reader.ts';

describe('the placement rollup', () => {
  it('counts verdicts overall and by provider, and leaves skipped and unfinished probes out of sampleSize', () => {
    const r = rollup('D1', '2026-11-22T10:00:00.000Z', [
      { provider: 'GOOGLE', placement: 'INBOX' },
      { provider: 'GOOGLE', placement: 'SPAM' },
      { provider: 'GOOGLE', placement: 'INBOX' },
      { provider: 'MICROSOFT', placement: 'MISSING' },
      { provider: 'MICROSOFT', placement: 'SKIPPED' },
      { provider: 'YAHOO', placement: 'SKIPPED' },
      { provider: 'APPLE', placement: 'READING' },
    ]);
    expect(r).toEqual({
      domainId: 'D1',
      sampledAt: '2026-11-22T10:00:00.000Z',
      sampleSize: 4,
      inbox: 2,
      spam: 1,
      missing: 1,
      byProvider: { GOOGLE: { inbox: 2, spam: 1, missing: 0 }, MICROSOFT: { inbox: 0, spam: 0, missing: 1 } },
    });
    expect(r.sampleSize).toBe(r.inbox + r.spam + r.missing);
  });

  it('is all zeros for a run that measured nothing', () => {
    expect(rollup('D1', 'x', [{ provider: 'GOOGLE', placement: 'SKIPPED' }])).toMatchObject({
      sampleSize: 0,
      inbox: 0,
      spam: 0,
      missing: 0,
      byProvider: {},
    });
  });
});
