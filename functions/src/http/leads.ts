import * as leads from '@outbound/core/lead/index';
import { nextSend } from '@outbound/core/sending/next-send';
import { answer, conversation } from '@outbound/core/conversation/index';
import { getImport, importCsv, requestUpload } from '@outbound/core/lead/import/index';
import { uploadsKit } from '../lib/kits/uploads.ts';
import { httpHandler } from '../lib/middleware.ts';
import { parseMultipart } from '../lib/multipart.ts';

export const handler = httpHandler(
  {
    'GET /v1/leads': async ({ deps, query }) => ({ status: 200, body: await leads.list(deps, query) }),
    'POST /v1/leads': async ({ deps, body }) => ({ status: 201, body: await leads.create(deps, body ?? {}) }),
    // Public: the answer is the same whether the lead was stored or skipped, so it tells nobody who is suppressed.
    'POST /v1/leads/webhook': async ({ deps, body, rawBody, headers }) => {
      await leads.acceptWebhook(deps, body ?? {}, { rawBody, headers });
      return { status: 200, body: { accepted: true } };
    },
    'POST /v1/leads/import': async ({ deps, event }) => {
      const form = parseMultipart(event);
      return { status: 200, body: await importCsv(deps, { campaignId: form.fields.campaignId, file: form.files.file?.data }) };
    },
    'POST /v1/leads/imports': async ({ deps, body }) => ({ status: 201, body: await requestUpload(deps, body ?? {}) }),
    'GET /v1/leads/imports/{importId}': async ({ deps, params }) => ({ status: 200, body: await getImport(deps, params.importId!) }),
    'GET /v1/leads/{id}/next-send': async ({ deps, params }) => ({ status: 200, body: await nextSend(deps, params.id!) }),
    'GET /v1/leads/{id}/conversation': async ({ deps, params, query }) => ({
      status: 200,
      body: await conversation(deps, params.id!, query),
    }),
    'POST /v1/leads/{id}/messages': async ({ deps, params, body, headers }) => ({
      status: 202,
      body: await answer(deps, params.id!, body ?? {}, headers['idempotency-key']),
    }),
    'POST /v1/leads/{id}/suppress': async ({ deps, params }) => ({ status: 200, body: await leads.suppress(deps, params.id!) }),
    'DELETE /v1/leads/erase': async ({ deps, body }) => ({ status: 200, body: await leads.erase(deps, body ?? {}) }),
    'DELETE /v1/leads/{id}': async ({ deps, params }) => {
      await leads.remove(deps, params.id!);
      return { status: 204 };
    },
  },
  [uploadsKit],
);
