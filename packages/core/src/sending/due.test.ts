/**
 * The due-time function, and that a job made or moved gets its due time
 * (and its place in the due index) from it.
 */
import { describe, expect, it } from 'vitest';
import { unitDeps } from '../testing/unit-deps.ts';
import { dueTime, followUpAt } from './due.ts';
import { createJob, getJob, move } from './jobs.ts';
import { dueIndex, jobId, jobKey } from './keys.ts';

const NOW = Date.UTC(2026, 2, 2, 12);

describe('due time', () => {
  it('is the wanted time, never before now', () => {
    expect(dueTime(NOW + 5_000, NOW)).toBe(NOW + 5_000);
    expect(dueTime(NOW - 5_000, NOW)).toBe(NOW);
    expect(dueTime(NOW, NOW)).toBe(NOW);
  });

  it('a follow-up is wanted its waitDays after the send before it', () => {
    expect(followUpAt(NOW, 3)).toBe(NOW + 3 * 86_400_000);
    expect(followUpAt(NOW, 0)).toBe(NOW);
  });

  it('a job made for a time already past is due now, and indexed there', async () => {
    const deps = unitDeps();
    const now = deps.clock.now();
    expect(await createJob(deps, { leadId: 'L1', campaignId: 'C1', step: 0, dueAt: now - 60_000 }, now)).toBe(true);
    const item = (await deps.store.get(jobKey(jobId('L1', 0))))!;
    expect(item.dueAt).toBe(now);
    expect(item).toMatchObject(dueIndex(jobId('L1', 0), now));
  });

  it('a job moved back to wait takes its new time through it; a move without one keeps the old', async () => {
    const deps = unitDeps();
    const now = deps.clock.now();
    await createJob(deps, { leadId: 'L2', campaignId: 'C1', step: 0, dueAt: now + 60_000 }, now);
    const id = jobId('L2', 0);
    expect(await move(deps, (await getJob(deps, id))!, 'QUEUED')).toBe(true);
    expect((await getJob(deps, id))!.dueAt).toBe(now + 60_000);

    expect(await move(deps, (await getJob(deps, id))!, 'SCHEDULED', { due: { at: now - 1, now, open: undefined } })).toBe(true);
    const back = (await deps.store.get(jobKey(id)))!;
    expect(back.dueAt).toBe(now);
    expect(back).toMatchObject(dueIndex(id, now));

    expect(await move(deps, (await getJob(deps, id))!, 'QUEUED', { due: { at: now + 7_000, now, open: undefined } })).toBe(true);
    expect(await deps.store.get(jobKey(id))).toMatchObject({ dueAt: now + 7_000, ...dueIndex(id, now + 7_000) });
  });
});
