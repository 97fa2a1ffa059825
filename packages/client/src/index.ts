/**
 * The typed client of the engine's HTTP API: openapi-fetch over the types
 * openapi-typescript generates from docs/openapi.json (schema.ts), so a call
 * whose path, parameters or body the API does not take fails to typecheck.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };
export type Schemas = components['schemas'];

export interface OutboundClientOptions {
  /** The installation's address (https://api.example.com, or '' for the page's own origin in a browser). */
  baseUrl: string;
  /** A bearer token, or a function read at each request (a console signs in and out without a new client). */
  token?: string | (() => string | undefined);
  fetch?: typeof fetch;
}

export function createOutboundClient(options: OutboundClientOptions): Client<paths> {
  const client = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const tokenOf = typeof options.token === 'function' ? options.token : () => options.token as string | undefined;
  client.use({
    onRequest({ request }) {
      const token = tokenOf();
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  });
  return client;
}
