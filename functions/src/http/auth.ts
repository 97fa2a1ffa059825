import { login } from '@outbound/core/auth/index';
import { httpHandler } from '../lib/middleware.ts';

export const handler = httpHandler({
  'POST /v1/auth/login': async ({ deps, body, ip }) => ({ status: 200, body: await login(deps, body ?? {}, { ip }) }),
});
