import * as deliverability from '@outbound/core/deliverability/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'POST /v1/domains/{domain}/check': async ({ deps, params, query }) => ({
    status: 200,
    body: await deliverability.check(deps, { domain: params.domain, selector: query.selector }),
  }),
  'GET /public/domain-check': async ({ deps, query }) => ({
    status: 200,
    body: await deliverability.publicCheck(deps, { domain: query.domain }),
  }),
});
