import { EngineError, NotFoundError } from '@outbound/core/errors';
import { httpHandler } from '../lib/middleware.ts';
import { openApiDocument } from '../openapi.ts';

/** API Gateway's `$default` route: every unknown path gets a `{ error }` body, and removed routes get 410. */
export const handler = httpHandler({
  'PUT /v1/instance-settings': async () => {
    throw new EngineError('GONE', 'This route was removed: a sending domain now carries its own mailing address (PATCH /v1/domains/{id}).');
  },
  'GET /v1/openapi.json': async ({ deps }) => ({ status: 200, body: openApiDocument(deps.config.publicBaseUrl || undefined) }),
  $default: async ({ event }) => {
    throw new NotFoundError(`There is no ${event.requestContext.http.method} ${event.rawPath} in this API.`);
  },
});
