import { createHmac } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { installSecret } from '../settings/index.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** 128 bits as 26 Crockford base-32 characters: the shape of every other id. */
function base32(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits) out += CROCKFORD[(acc << (5 - bits)) & 31];
  return out;
}

/**
 * A lead's id is derived from its campaign and address (lower-cased), keyed
 * with an installation secret: the row's own key is then the "one lead per
 * address per campaign" rule, so a bulk import checks and writes one item per
 * lead, and a batch written twice writes the same rows. The key reveals
 * nothing of the address without the secret (as the suppression list's keys).
 */
export async function leadIdMaker(deps: Pick<Deps, 'store' | 'keys'>): Promise<(campaignId: string, email: string) => string> {
  const salt = await installSecret(deps, 'SUPPRESSION_SALT');
  return (campaignId, email) =>
    base32(createHmac('sha256', salt).update(`lead\u0000${campaignId}\u0000${email.trim().toLowerCase()}`).digest().subarray(0, 16));
}
