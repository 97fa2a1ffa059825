import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors.ts';
import { campaignKey } from '../campaign/keys.ts';
import { openSecretCached, sealSecret } from '../secrets/index.ts';
import type { Campaign } from '../campaign/entity.ts';

/**
 * The public webhook's optional secret, per campaign. Without one, anyone who
 * knows a campaign id can add leads to it (the contract keeps the route
 * public); with one, a request must carry the secret itself
 * (`X-Outbound-Webhook-Token`) or an HMAC-SHA256 of its body under the secret
 * (`X-Outbound-Signature: sha256=<hex>`), or it is refused with 401.
 */
export const TOKEN_HEADER = 'x-outbound-webhook-token';
export const SIGNATURE_HEADER = 'x-outbound-signature';
/** A webhook body larger than this is refused: a lead is at most 50 fields of 2,000 characters. */
export const MAX_WEBHOOK_BODY_BYTES = 131_072;

async function mustExist(deps: Pick<Deps, 'store'>, campaignId: string): Promise<void> {
  if (!(await deps.store.get(campaignKey(campaignId)))) throw new NotFoundError(`There is no campaign ${campaignId}.`);
}

const context = (campaignId: string) => ({ purpose: 'webhook-secret', campaign: campaignId });

/** Makes (or replaces) the campaign's secret and answers it, the one time it is shown. */
export async function rotateSecret(deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>, campaignId: string) {
  await mustExist(deps, campaignId);
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  const sealedWebhookSecret = await sealSecret(deps.keys, secret, context(campaignId));
  await deps.store.update(campaignKey(campaignId), {
    set: { sealedWebhookSecret, webhookSecured: true, webhookSecretSetAt: new Date(deps.wallClock.now()).toISOString() },
    if: { itemExists: true },
  });
  return { campaignId, webhookSecret: secret };
}

/** The webhook of the campaign is open again (no secret asked). */
export async function removeSecret(deps: Pick<Deps, 'store'>, campaignId: string): Promise<void> {
  await mustExist(deps, campaignId);
  await deps.store.update(campaignKey(campaignId), { set: { webhookSecured: false }, remove: ['sealedWebhookSecret', 'webhookSecretSetAt'], if: { itemExists: true } });
}

export interface WebhookRequest {
  /** The body exactly as it came (the signature covers these bytes). */
  rawBody: string;
  headers: Record<string, string | undefined>;
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Throws 401 unless the request proves it knows the campaign's secret; campaigns without one take any request. */
export async function verifyWebhook(deps: Pick<Deps, 'keys'>, campaign: Campaign, req: WebhookRequest): Promise<void> {
  if (Buffer.byteLength(req.rawBody) > MAX_WEBHOOK_BODY_BYTES) {
    throw new ValidationError(`The body is larger than ${MAX_WEBHOOK_BODY_BYTES / 1024} KB: a lead is at most 50 custom fields of 2,000 characters.`);
  }
  if (typeof campaign.sealedWebhookSecret !== 'string') return;
  const secret = await openSecretCached(deps.keys, campaign.sealedWebhookSecret, context(campaign.id));
  const token = req.headers[TOKEN_HEADER];
  if (token && same(token, secret)) return;
  const signature = req.headers[SIGNATURE_HEADER];
  const expected = `sha256=${createHmac('sha256', secret).update(req.rawBody).digest('hex')}`;
  if (signature && same(signature.trim().toLowerCase(), expected)) return;
  throw new UnauthorizedError(
    `This campaign takes webhook leads only with its secret: send it in the ${TOKEN_HEADER} header, or sign the body (${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the body>).`,
  );
}
