/**
 * The stored shapes of the send path read rows as the code before them did:
 * what an older row lacks comes back as the value the readers assumed, and
 * nothing the row holds is lost on the way.
 */
import { describe, expect, it } from 'vitest';
import { pairDayFromItem, pairFromItem } from '../guardrails/breaker.entity.ts';
import { probeFromItem, runFromItem } from '../placement/entity.ts';
import { campaignStepOf, fromItem, toItem } from './job.entity.ts';
import { jobKey } from './keys.ts';
import { dailySendsFromItem, queueSwitchFromItem } from './queue.entity.ts';

describe('the stored job', () => {
  it('reads a row without attempts or kind as a campaign step never tried, keeping its other fields', () => {
    const row = { ...jobKey('L1.0'), id: 'L1.0', state: 'QUEUED', dueAt: 5, leadId: 'L1', campaignId: 'C1', step: 0, gsi1pk: 'JOBS#DUE#3' };
    const job = fromItem(row);
    expect(job).toMatchObject({ id: 'L1.0', state: 'QUEUED', dueAt: 5, attempts: 0, gsi1pk: 'JOBS#DUE#3' });
    expect(job.kind).toBeUndefined();
    expect(campaignStepOf(job)).toMatchObject({ leadId: 'L1', campaignId: 'C1', step: 0 });
  });

  it('writes a new job with its key, due index and collection', () => {
    const item = toItem({ id: 'L1.0', state: 'SCHEDULED', dueAt: 7, attempts: 0, leadId: 'L1' }, 'CAMPAIGN#C1#JOBS');
    expect(item).toMatchObject({ ...jobKey('L1.0'), gsi2pk: 'CAMPAIGN#C1#JOBS', gsi2sk: 'L1.0', leadId: 'L1', state: 'SCHEDULED' });
    expect(item.gsi1sk).toMatch(/^0+7#L1\.0$/);
  });

  it('refuses a state no job is ever in', () => {
    expect(() => fromItem({ ...jobKey('x'), id: 'x', state: 'LOST', dueAt: 0 })).toThrow();
  });
});

describe('the send path’s small items', () => {
  it('read a missing pair, day, switch or count as untripped, zero and running', () => {
    expect(pairFromItem(undefined)).toEqual({ tripped: false, epoch: 0 });
    expect(pairDayFromItem({ pk: 'p', sk: 's', bounces: 2 })).toMatchObject({ sends: 0, bounces: 2 });
    expect(queueSwitchFromItem(undefined).paused).toBe(false);
    expect(dailySendsFromItem(undefined).count).toBe(0);
  });
});

describe('a placement run and its probes', () => {
  it('read a run started from copy (no campaign) and a probe still waiting for its verdict', () => {
    const run = runFromItem({
      pk: 'PLACEMENT#R1',
      sk: 'RUN',
      id: 'R1',
      domainId: 'D1',
      status: 'OPEN',
      campaignId: null,
      copy: { subject: 'Hi', body: 'Hello', unsubscribeUrlTemplate: null },
      startedAt: '2026-11-22T10:00:00.000Z',
      startedAtMs: 1,
    });
    expect(run).toMatchObject({ campaignId: null, copy: { unsubscribeUrlTemplate: null } });
    const probe = probeFromItem({
      ...jobKey('probe-R1-S1'),
      id: 'probe-R1-S1',
      kind: 'probe',
      state: 'SENT',
      dueAt: 1,
      attempts: 1,
      mailboxId: 'M1',
      runId: 'R1',
      domainId: 'D1',
      seedId: 'S1',
      seedEmail: 'seed@gmail.com',
      provider: 'GOOGLE',
      sentAtMs: 2,
    });
    expect(probe.placement).toBeUndefined();
    expect(probe.sentAtMs).toBe(2);
  });
});
