/**
 * The built-in unsubscribe page's token and verb (guardrail 3;
 * docs/api.md, Unsubscribe). The token names the lead, never the address, so a link
 * forwarded or logged does not leak who it was sent to, and it is signed so
 * nobody can unsubscribe somebody else by guessing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { NotFoundError } from '../errors.ts';
import * as leads from '../lead/index.ts';
import * as facts from '../lead/facts.ts';
import { deletedLeadFromItem, type Lead } from '../lead/entity.ts';
import { seedKey } from '../seed/keys.ts';
import { fromItem as seedFromItem, type Seed } from '../seed/entity.ts';
import { installSecret } from '../settings/index.ts';
import { deletedLeadKey } from '../lead/keys.ts';

type D = Pick<Deps, 'store' | 'keys'>;

/** 128 bits of HMAC-SHA256 is plenty against forgery and keeps the link short. */
const MAC_BYTES = 16;
/** Lead ids are ULIDs; anything far longer is not ours and is refused before any hashing. */
const MAX_TOKEN_CHARS = 256;
const B64URL = /^[A-Za-z0-9_-]+$/;
/** `{{email}}`, `{{ email }}`: the placeholder the campaign schema accepts. */
const EMAIL_PLACEHOLDER = /\{\{\s*email\s*\}\}/g;

async function mac(deps: D, leadId: string): Promise<Buffer> {
  const key = await installSecret(deps, 'UNSUBSCRIBE_KEY');
  // Versioned and domain-separated, so this key's MACs mean nothing anywhere else.
  return createHmac('sha256', key).update(`unsubscribe:v1:${leadId}`, 'utf8').digest().subarray(0, MAC_BYTES);
}

/** Strict base64url: Buffer.from skips characters it does not know, so re-encode and compare. */
function decode(part: string): Buffer | undefined {
  if (!B64URL.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

/** `base64url(leadId).base64url(mac)`: the path segment of the built-in unsubscribe link. */
export async function unsubscribeToken(deps: D, leadId: string): Promise<string> {
  return `${Buffer.from(leadId, 'utf8').toString('base64url')}.${(await mac(deps, leadId)).toString('base64url')}`;
}

/** The lead id a token names, or undefined for anything malformed, tampered or signed by another installation. */
export async function leadIdFromToken(deps: D, token: string): Promise<string | undefined> {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return undefined;
  const parts = token.split('.');
  if (parts.length !== 2) return undefined;
  const idBytes = decode(parts[0]!);
  const given = decode(parts[1]!);
  if (!idBytes || !given || given.length !== MAC_BYTES) return undefined;
  const leadId = idBytes.toString('utf8');
  // Bytes that are not UTF-8 would decode to U+FFFD: refuse rather than sign something else.
  if (!Buffer.from(leadId, 'utf8').equals(idBytes)) return undefined;
  return timingSafeEqual(given, await mac(deps, leadId)) ? leadId : undefined;
}

/**
 * The link for the footer and List-Unsubscribe: the campaign's own page with
 * `{{email}}` filled in URL-encoded, else the built-in page on the
 * installation's domain. Undefined when there is neither; the send path then
 * refuses the send (guardrail 1).
 */
export async function unsubscribeUrl(
  deps: Pick<Deps, 'store' | 'keys' | 'config'>,
  lead: { id: string; email: string },
  campaign: { unsubscribeUrlTemplate?: string | null },
): Promise<string | undefined> {
  const template = campaign.unsubscribeUrlTemplate?.trim();
  if (template) return template.replace(EMAIL_PLACEHOLDER, () => encodeURIComponent(lead.email));
  const base = deps.config.publicBaseUrl.trim().replace(/\/+$/, '');
  if (!base) return undefined;
  return `${base}/unsubscribe/${await unsubscribeToken(deps, lead.id)}`;
}

/**
 * A placement sample goes to a seed inbox, not a lead; its link names the
 * seed this way (lead ids are ULIDs and never hold a colon).
 */
export const seedSubject = (seedId: string) => `seed:${seedId}`;

/**
 * Whom a valid token names: a lead, a deleted lead (only its address's hash is
 * left), or a seed inbox. Undefined for a bad token, or one whose lead was
 * never stored or whose seed is gone.
 */
export async function recipientOfToken(
  deps: D,
  token: string,
): Promise<{ email: string; lead?: Lead; seed?: Seed; addressHash?: string } | undefined> {
  const subject = await leadIdFromToken(deps, token);
  if (subject === undefined) return undefined;
  if (subject.startsWith('seed:')) {
    const item = await deps.store.get(seedKey(subject.slice('seed:'.length)));
    const seed = item && seedFromItem(item);
    return seed ? { email: seed.email, seed } : undefined;
  }
  try {
    const lead = await leads.get(deps, subject);
    return { email: lead.email, lead };
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const gone = await deps.store.get(deletedLeadKey(subject));
    return gone ? { email: '', addressHash: deletedLeadFromItem(gone).addressHash } : undefined;
  }
}

/**
 * The button on the built-in page and the RFC 8058 one-click POST: puts the
 * address on the install-wide suppression list and stops its sequence in
 * every campaign. Pressing twice is fine. A bad token or an unknown lead
 * changes nothing. A placement sample's link stops that seed's samples.
 */
export async function unsubscribe(
  deps: Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log'>,
  token: string,
): Promise<{ ok: true; email: string } | { ok: false }> {
  const recipient = await recipientOfToken(deps, token);
  if (!recipient) return { ok: false };
  const { email, lead, seed, addressHash } = recipient;
  // A deleted lead: its address is suppressed by the hash that stayed (the row, and its other campaigns' rows by address, are gone or stopped at send time).
  if (addressHash) {
    await facts.unsubscribed(deps, { addressHash });
    return { ok: true, email };
  }
  if (seed) {
    // A seed is the customer's own inbox, not a lead: the click stops its samples (shown on the seed, undone by
    // adding it again) instead of putting the customer's address on the permanent suppression list.
    await deps.store
      .update(seedKey(seed.id), { set: { unsubscribedAt: new Date(deps.wallClock.now()).toISOString() }, if: { itemExists: true } })
      .catch((err) => {
        if ((err as Error).name !== 'ConditionFailedError') throw err;
      });
    return { ok: true, email };
  }
  // Erasure already suppressed the real address and every row of it; the row now holds a placeholder.
  if (lead?.erased) return { ok: true, email };
  await facts.unsubscribed(deps, { email, lead });
  return { ok: true, email };
}
