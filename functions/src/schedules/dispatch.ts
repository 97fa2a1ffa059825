import { dispatch } from '@outbound/core/sending/dispatcher';
import { getDeps } from '../lib/deps.ts';

/** The dispatcher, on an EventBridge schedule (a timer locally). `requeueAll` is the local start-up recovery. */
export async function handler(event: { requeueAll?: boolean } = {}) {
  const deps = getDeps();
  const result = await dispatch(deps, { requeueAll: Boolean(event.requeueAll) });
  if (result.queued || result.recovered || result.settled) deps.log.info('dispatch', result);
  return result;
}
