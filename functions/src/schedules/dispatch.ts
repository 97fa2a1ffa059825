import { dispatch } from '@outbound/core/sending/dispatcher';
import { getDeps, lambda } from '../lib/deps.ts';
import { mailKit } from '../lib/kits/mail.ts';

/** The dispatcher, on an EventBridge schedule (a timer locally). `requeueAll` is the local start-up recovery. */
async function run(event: { requeueAll?: boolean } = {}) {
  const deps = getDeps();
  const result = await dispatch(deps, { requeueAll: Boolean(event.requeueAll) });
  if (result.queued || result.recovered || result.settled) deps.log.info('dispatch', result);
  return result;
}

export const handler = lambda(run, [mailKit]);
