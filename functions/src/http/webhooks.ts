import * as webhooks from '@outbound/core/webhooks/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'GET /v1/webhooks': async ({ deps }) => ({ status: 200, body: { webhooks: await webhooks.list(deps) } }),
  'POST /v1/webhooks': async ({ deps, body }) => ({ status: 201, body: await webhooks.create(deps, body) }),
  'DELETE /v1/webhooks/{id}': async ({ deps, params }) => {
    await webhooks.remove(deps, params.id);
    return { status: 204 };
  },
  'GET /v1/webhooks/{id}/deliveries': async ({ deps, params, query }) => ({
    status: 200,
    body: await webhooks.deliveries(deps, params.id, query),
  }),
});
