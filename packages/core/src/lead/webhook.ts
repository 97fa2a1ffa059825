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
 * (`X-Outbound-Webhook-Token`) or a signature of its timestamp and body under
 * the secret (`X-Outbound-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`,
 * taken within 5 minutes of its timestamp), or a Standard Webhooks signature
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`, the
 * scheme the engine's own outbound webhooks use, so the same libraries sign
 * both ways), or it is refused with 401.
 */
export const TOKEN_HEADER = 'x-outbound-webhook-token';
export const SIGNATURE_HEADER = 'x-outbound-signature';
/** Standard Webhooks' headers (standardwebhooks.com): the message id, its Unix time, and `v1,<base64 HMAC>` (several, space-separated, while a sender rotates). */
export const STANDARD_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** A webhook body larger than this is refused: a lead is at most 50 fields of 2,000 characters. */
export const MAX_WEBHOOK_BODY_BYTES = 131_072;

async function mustExist(deps: Pick<Deps, 'store'>, campaignId: string): Promise<void> {
  if (!(await deps.store.get(campaignKey(campaignId)))) throw new NotFoundError(`There is no campaign ${campaignId}.`);
}

const context = (campaignId: string) => ({ purpose: 'webhook-secret', campaign: campaignId });

/** Makes (or replaces) the campaign's secret and answers it, the one time it is shown. */
export async function rotateSecret(deps: Pick<Deps, 'store' | 'keys' | 'wallClock'>, campaignId: string) {
  await mustExist(deps, campaignId);
  // Standard base64 after whsec_, as Standard Webhooks' libraries decode it (secrets made before keep working: both alphabets are read).
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
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
  await deps.store.update(campaignKey(campaignId), {
    set: { webhookSecured: false },
    remove: ['sealedWebhookSecret', 'webhookSecretSetAt'],
    if: { itemExists: true },
  });
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

/** A signed request is taken this long (wall clock) either side of its timestamp: a captured one cannot be replayed later. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/** `t=<unix seconds>,v1=<hex>` (order free; several v1 while a sender rotates), or undefined when it is not that form. */
function signatureParts(header: string): { t: number; v1: string[] } | undefined {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const v1 = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v!.toLowerCase());
  if (!t || !/^\d{1,12}$/.test(t) || !v1.length) return undefined;
  return { t: Number(t), v1 };
}

const HOW = `send the secret in the ${TOKEN_HEADER} header, or sign the request (${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, or Standard Webhooks' webhook-id, webhook-timestamp and webhook-signature)`;

const fresh = (deps: Pick<Deps, 'wallClock'>, seconds: number) => Math.abs(deps.wallClock.now() - seconds * 1000) <= SIGNATURE_TOLERANCE_MS;
const STALE = "The signature's timestamp is more than 5 minutes away from now: sign each request when it is sent.";

/**
 * A Standard Webhooks signature: HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the base64-decoded
 * secret after `whsec_`, within 5 minutes of its timestamp. Throws 401 when it is present and wrong.
 */
function verifyStandard(deps: Pick<Deps, 'wallClock'>, secret: string, req: WebhookRequest, header: string): void {
  const id = req.headers[STANDARD_HEADERS.id];
  const timestamp = req.headers[STANDARD_HEADERS.timestamp];
  if (!id || !timestamp || !/^\d{1,12}$/.test(timestamp))
    throw new UnauthorizedError(`A Standard Webhooks signature needs the webhook-id and webhook-timestamp headers too: ${HOW}.`);
  if (!fresh(deps, Number(timestamp))) throw new UnauthorizedError(STALE);
  // Node's base64 reads the standard and the URL-safe alphabets alike.
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${req.rawBody}`).digest('base64');
  const given = header
    .split(' ')
    .filter((p) => p.startsWith('v1,'))
    .map((p) => p.slice(3));
  if (!given.some((v) => same(v, expected))) throw new UnauthorizedError(`The signature does not match: ${HOW}.`);
}

/** Throws 401 unless the request proves it knows the campaign's secret; campaigns without one take any request. */
export async function verifyWebhook(deps: Pick<Deps, 'keys' | 'wallClock'>, campaign: Campaign, req: WebhookRequest): Promise<void> {
  if (Buffer.byteLength(req.rawBody) > MAX_WEBHOOK_BODY_BYTES) {
    throw new ValidationError(
      `The body is larger than ${MAX_WEBHOOK_BODY_BYTES / 1024} KB: a lead is at most 50 custom fields of 2,000 characters.`,
    );
  }
  if (typeof campaign.sealedWebhookSecret !== 'string') return;
  const secret = await openSecretCached(deps.keys, campaign.sealedWebhookSecret, context(campaign.id));
  const token = req.headers[TOKEN_HEADER];
  if (token && same(token, secret)) return;
  const standard = req.headers[STANDARD_HEADERS.signature];
  if (standard) return verifyStandard(deps, secret, req, standard);
  const header = req.headers[SIGNATURE_HEADER];
  if (!header) throw new UnauthorizedError(`This campaign takes webhook leads only with its secret: ${HOW}.`);
  const signed = signatureParts(header);
  // The signature covers a timestamp, so a captured request is refused once it is old (a bare body HMAC could be sent again forever).
  if (!signed) throw new UnauthorizedError(`The signature is not in the form this engine checks: ${HOW}.`);
  if (!fresh(deps, signed.t)) throw new UnauthorizedError(STALE);
  const expected = createHmac('sha256', secret).update(`${signed.t}.${req.rawBody}`).digest('hex');
  if (signed.v1.some((v) => same(v, expected))) return;
  throw new UnauthorizedError(`The signature does not match: ${HOW}.`);
}
