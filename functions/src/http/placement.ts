import * as placement from '@outbound/core/placement/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'GET /v1/domains/{id}/placement-sample': async ({ deps, params }) => ({ status: 200, body: await placement.sample(deps, params.id!) }),
  // Accepted, not done: the samples go out at the mailboxes' cadence and are read minutes later.
  'POST /v1/domains/{id}/placement-sample': async ({ deps, params, body }) => ({
    status: 202,
    body: await placement.start(deps, params.id!, body),
  }),
  'GET /v1/domains/{id}/placement-runs': async ({ deps, params }) => ({ status: 200, body: await placement.runs(deps, params.id!) }),
});
