import * as aiKeys from '@outbound/core/ai-keys/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'GET /v1/ai-keys': async ({ deps }) => ({ status: 200, body: await aiKeys.list(deps) }),
  'PUT /v1/ai-keys/{provider}': async ({ deps, params, body }) => {
    await aiKeys.put(deps, params.provider, body ?? {});
    return { status: 204 };
  },
  'DELETE /v1/ai-keys/{provider}': async ({ deps, params }) => {
    await aiKeys.remove(deps, params.provider);
    return { status: 204 };
  },
});
