/** The campaign's import lock: two imports into one campaign take turns, so neither counts the other's rows. */
import { ConditionFailedError } from '../../errors.ts';
import { importLockFromItem, lapsed, type ImportRecord } from '../entity.ts';
import { importLockKey } from '../keys.ts';
import { LEASE_MS, sleep, type ImportDeps } from './record.ts';

/**
 * Takes the campaign's import lock for this import (renewed with its
 * progress, kept through a hand-over, removed when it ends). Another import
 * holding it: wait for it when `wait`, up to `until`. Says whether another
 * import held the lock before (it may have stored rows the campaign's counts
 * do not show yet), or null when the lock was not taken.
 */
export async function lockCampaign(
  deps: ImportDeps,
  r: ImportRecord,
  opts: { until: number; wait?: boolean },
  /** Called while waiting: the worker keeps its hold on its own import meanwhile (false: another worker took it). */
  keepHold: () => Promise<boolean>,
): Promise<{ othersBefore: boolean } | null> {
  for (;;) {
    const now = deps.wallClock.now();
    const stored = await deps.store.get(importLockKey(r.campaignId));
    const current = stored && importLockFromItem(stored);
    if (!current || current.importId === r.importId || lapsed(current, now)) {
      try {
        await deps.store.put(
          { ...importLockKey(r.campaignId), importId: r.importId, leaseUntil: now + LEASE_MS },
          current
            ? {
                if: {
                  and: [
                    { attr: 'importId', op: '=', value: current.importId },
                    { attr: 'leaseUntil', op: '=', value: current.leaseUntil },
                  ],
                },
              }
            : { if: { itemExists: false } },
        );
        return { othersBefore: Boolean(current && current.importId !== r.importId) };
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
        continue;
      }
    }
    if (!opts.wait || now + 500 >= opts.until) return null;
    await sleep(500);
    if (!(await keepHold())) return null;
  }
}
