import * as domains from '@outbound/core/domain/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'GET /v1/domains': async ({ deps }) => ({ status: 200, body: await domains.list(deps) }),
  'POST /v1/domains': async ({ deps, body }) => ({ status: 201, body: await domains.create(deps, body ?? {}) }),
  'PATCH /v1/domains/{id}': async ({ deps, params, body }) => ({
    status: 200,
    body: await domains.update(deps, { ...(body as object), id: params.id }),
  }),
});
