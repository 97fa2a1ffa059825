/**
 * The registry of job kinds: the one place that knows every kind of email
 * the engine sends. The send path and the dispatcher look a job's kind up
 * here (sending/kinds.ts says what a kind supplies).
 */
import type { Item } from './ports/store.ts';
import { campaignStep } from './sending/campaign-send.ts';
import type { JobKind } from './sending/kinds.ts';
import { placementProbe } from './placement/probe.ts';

const KINDS: JobKind[] = [campaignStep, placementProbe];
const byName = new Map(KINDS.map((k) => [k.name, k]));

export function kindOf(job: Item): JobKind {
  const name = String(job.kind ?? campaignStep.name);
  const kind = byName.get(name);
  if (!kind) throw new Error(`The job ${String(job.id)} is of a kind this engine does not know: ${name}.`);
  return kind;
}
