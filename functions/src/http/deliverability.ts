import * as deliverability from '@outbound/core/deliverability/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  // The route's variable is {id} (API Gateway's one name per level), but this route takes the domain's name.
  'POST /v1/domains/{id}/check': async ({ deps, params, query }) => ({
    status: 200,
    body: await deliverability.check(deps, { domain: params.id, selector: query.selector }),
  }),
  'GET /public/domain-check': async ({ deps, query }) => ({
    status: 200,
    body: await deliverability.publicCheck(deps, { domain: query.domain }),
  }),
});
