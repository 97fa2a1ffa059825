import { checkAll } from '@outbound/core/deliverability/index';
import { getDeps, lambda } from '../lib/deps.ts';

/** The hourly check of every domain (guardrail 10), on an EventBridge schedule (a timer locally). Each result is kept as the domain's lastCheck. */
async function run() {
  const deps = getDeps();
  const result = await checkAll(deps);
  deps.log.info('domain check', result);
  return result;
}

export const handler = lambda(run);
