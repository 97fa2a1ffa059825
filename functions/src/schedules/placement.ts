import { tick } from '@outbound/core/placement/reader';
import { getDeps, lambda } from '../lib/deps.ts';
import { mailKit } from '../lib/kits/mail.ts';

/** Moves placement runs on: reads the seed inboxes that are due a look, and finishes runs whose seeds all have a verdict. */
async function run() {
  const deps = getDeps();
  const result = await tick(deps);
  if (result.read || result.completed) deps.log.info('placement tick', result);
  return result;
}

export const handler = lambda(run, [mailKit]);
