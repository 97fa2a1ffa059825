import type { Context } from 'aws-lambda';
import { importOfBlob, resumeImports, runImport } from '@outbound/core/lead/import/index';
import { getDeps, lambda } from '../lib/deps.ts';
import { uploadsKit } from '../lib/kits/uploads.ts';

/** Leaves this much of the function's time for the batches in flight and the last progress write. */
const MARGIN_MS = 20_000;

interface StoredEvent {
  Records?: { s3?: { object?: { key?: string } } }[];
  /** Set by the local runtime's start: imports a killed engine held are taken over as soon as their hold ends. */
  waitForHolds?: boolean;
}

/**
 * The import worker. A stored CSV (S3's ObjectCreated event; the local blob
 * store's callback locally) starts its import; the schedule takes over
 * imports whose worker stopped. Either way it stops 20 s before its time ends
 * and leaves the rest to the next run.
 */
async function run(event: StoredEvent = {}, context?: Partial<Context>) {
  const deps = getDeps();
  const until = deps.wallClock.now() + Math.max(10_000, (context?.getRemainingTimeInMillis?.() ?? 900_000) - MARGIN_MS);
  const keys = (event.Records ?? []).map((r) => decodeURIComponent((r.s3?.object?.key ?? '').replace(/\+/g, ' ')));
  if (!keys.length) return { resumed: await resumeImports(deps, { until, wait: event.waitForHolds === true }) };
  for (const key of keys) {
    const importId = importOfBlob(key);
    // The request that stored the file may still be storing rows: wait for it to hand over or finish.
    if (importId) await runImport(deps, importId, { until, wait: true });
  }
  return { started: keys.length };
}

export const handler = lambda(run, [uploadsKit]);
