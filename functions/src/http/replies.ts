import { listReplies, updateReply } from '@outbound/core/inbound/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'GET /v1/replies': async ({ deps, query }) => ({ status: 200, body: await listReplies(deps, query) }),
  'PATCH /v1/replies/{id}': async ({ deps, params, body }) => ({ status: 200, body: await updateReply(deps, params.id!, body) }),
});
