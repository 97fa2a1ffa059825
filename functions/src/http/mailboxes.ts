import * as mailboxes from '@outbound/core/mailbox/index';
import { httpHandler } from '../lib/middleware.ts';
import { mailKit } from '../lib/kits/mail.ts';

export const handler = httpHandler(
  {
    'GET /v1/mailboxes': async ({ deps }) => ({ status: 200, body: await mailboxes.list(deps) }),
    'POST /v1/mailboxes': async ({ deps, body }) => ({ status: 201, body: await mailboxes.create(deps, body ?? {}) }),
    'PATCH /v1/mailboxes/{id}': async ({ deps, params, body }) => ({
      status: 200,
      body: await mailboxes.update(deps, { ...(body as object), id: params.id }),
    }),
    'DELETE /v1/mailboxes/{id}': async ({ deps, params }) => {
      await mailboxes.remove(deps, params.id!);
      return { status: 204 };
    },
  },
  [mailKit],
);
