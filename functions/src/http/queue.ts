import * as queue from '@outbound/core/queue/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'GET /v1/queue/status': async ({ deps }) => ({ status: 200, body: await queue.status(deps) }),
  'POST /v1/queue/pause': async ({ deps, body }) => ({ status: 200, body: await queue.pause(deps, body ?? {}) }),
});
