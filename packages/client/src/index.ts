/**
 * The engine's API from TypeScript: openapi-fetch over the types generated
 * from docs/openapi.json (schema.ts, `npm run client`). Each call is typed by
 * its path and method, from the parameters to the body to every answer:
 *
 *   const api = createOutboundClient({ baseUrl, token: () => session.token });
 *   const { data, error } = await api.GET('/v1/campaigns/{id}', { params: { path: { id } } });
 *
 * `data` is the success answer, `error` the refusal's body (`{ error }`, and
 * what some refusals add); exactly one of them is set. Runs in a browser and
 * in Node: nothing here imports a Node module.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };
/** The named answers of the API (`Schemas['Campaign']`, `Schemas['Reply']`, `Schemas['Error']`). */
export type Schemas = components['schemas'];
export type OutboundClient = Client<paths>;

export interface OutboundClientOptions {
  /** The installation's address (`http://localhost:3000`, the API Gateway URL, or the console's own origin). */
  baseUrl: string;
  /**
   * The bearer token from `POST /v1/auth/login`, or a function that gives the current one: it is read at
   * each request, so a client made before sign-in sends the token once there is one.
   */
  token?: string | (() => string | undefined);
  /** A fetch of your own (tests, a proxy); the global one by default. */
  fetch?: typeof fetch;
}

/** A typed client of the API; it sends `Authorization: Bearer <token>` whenever a token is there. */
export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const bearer: Middleware = {
    onRequest({ request }) {
      const token = typeof options.token === 'function' ? options.token() : options.token;
      // A header the call sets itself wins: a request may speak for another user than the client's.
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  };
  client.use(bearer);
  return client;
}
