import { EngineError, NotFoundError } from '@outbound/core/errors';
import { httpHandler } from '../lib/middleware.ts';
// The document `npm run build` wrote from functions/src/openapi.ts (a test holds the file to the generator).
// Served as built rather than generated here: the generator carries every schema of the API, which
// would make this, the smallest function, one of the largest.
import committed from '../../../docs/openapi.json' with { type: 'json' };

/** GET /v1/openapi.json: the committed document, with this installation as its server when it has an address (PUBLIC_BASE_URL). */
export const openApiAnswer = (publicBaseUrl?: string): unknown =>
  publicBaseUrl ? { ...committed, servers: [{ url: publicBaseUrl }] } : committed;

/** API Gateway's `$default` route: every unknown path gets a `{ error }` body, and removed routes get 410. */
export const handler = httpHandler({
  'PUT /v1/instance-settings': async () => {
    throw new EngineError('GONE', 'This route was removed: a sending domain now carries its own mailing address (PATCH /v1/domains/{id}).');
  },
  'GET /v1/openapi.json': async ({ deps }) => ({ status: 200, body: openApiAnswer(deps.config.publicBaseUrl || undefined) }),
  $default: async ({ event }) => {
    throw new NotFoundError(`There is no ${event.requestContext.http.method} ${event.rawPath} in this API.`);
  },
});
