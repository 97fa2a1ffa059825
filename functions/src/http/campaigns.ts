import * as campaigns from '@outbound/core/campaign/index';
import * as variants from '@outbound/core/campaign/variants';
import * as webhook from '@outbound/core/lead/webhook';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'GET /v1/campaigns': async ({ deps }) => ({ status: 200, body: await campaigns.list(deps) }),
  'POST /v1/campaigns': async ({ deps, body }) => ({ status: 201, body: await campaigns.create(deps, body ?? {}) }),
  'GET /v1/campaigns/{id}': async ({ deps, params }) => ({ status: 200, body: await campaigns.get(deps, params.id!) }),
  'PATCH /v1/campaigns/{id}': async ({ deps, params, body }) => ({
    status: 200,
    body: await campaigns.update(deps, params.id!, body ?? {}),
  }),
  'DELETE /v1/campaigns/{id}': async ({ deps, params }) => ({ status: 200, body: await campaigns.setStatus(deps, params.id!, 'ARCHIVED') }),
  'GET /v1/campaigns/{id}/launch-check': async ({ deps, params }) => ({ status: 200, body: await campaigns.launchCheck(deps, params.id!) }),
  'GET /v1/campaigns/{id}/variants': async ({ deps, params }) => ({ status: 200, body: await variants.figures(deps, params.id!) }),
  'POST /v1/campaigns/{id}/launch': async ({ deps, params }) => ({ status: 200, body: await campaigns.launch(deps, params.id!) }),
  // Shown once: only its sealed form is kept. A new one replaces the old at once.
  'POST /v1/campaigns/{id}/webhook-secret': async ({ deps, params }) => ({
    status: 201,
    body: await webhook.rotateSecret(deps, params.id!),
  }),
  'DELETE /v1/campaigns/{id}/webhook-secret': async ({ deps, params }) => {
    await webhook.removeSecret(deps, params.id!);
    return { status: 204 };
  },
  'POST /v1/campaigns/{id}/pause': async ({ deps, params }) => ({
    status: 200,
    body: await campaigns.setStatus(deps, params.id!, 'PAUSED'),
  }),
});
