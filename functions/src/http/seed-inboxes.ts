import * as seeds from '@outbound/core/seed/index';
import { mailKit } from '../lib/kits/mail.ts';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler(
  {
    'GET /v1/seed-inboxes': async ({ deps }) => ({ status: 200, body: await seeds.list(deps) }),
    'POST /v1/seed-inboxes': async ({ deps, body }) => ({ status: 201, body: await seeds.create(deps, body ?? {}) }),
    'DELETE /v1/seed-inboxes/{id}': async ({ deps, params }) => {
      await seeds.remove(deps, params.id!);
      return { status: 204 };
    },
  },
  [mailKit],
);
