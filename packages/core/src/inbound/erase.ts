/**
 * What an erase or a delete must reach of a reply besides its sender and words (docs/security.md, Erase):
 * the referral it gives (someone's address, and the pointer that finds it by that address) and the words
 * waiting for the customer's AI. Each step is safe to run again.
 */
import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import type { Item } from '../ports/store.ts';
import * as suppression from '../suppression/index.ts';
import { aiReadKey, inboundKey, referralKey, referralsOf } from './keys.ts';

/** The referral's pointer and the AI's waiting words of one stored inbound item; the item's own fields are its caller's. */
export async function forgetReplyParts(deps: Pick<Deps, 'store' | 'keys'>, item: Item): Promise<void> {
  const replyId = String(item.id ?? '');
  if (!replyId) return;
  const referral = item.referral as { email?: unknown } | null | undefined;
  if (referral && typeof referral.email === 'string')
    await deps.store.delete(referralKey(await suppression.addressHash(deps, referral.email), replyId));
  await deps.store.delete(aiReadKey(replyId));
}

/** Every reply whose referral names this address loses it (whoever wrote the reply), found by the address's keyed hash. */
export async function eraseReferralsTo(deps: Pick<Deps, 'store' | 'keys'>, email: string): Promise<number> {
  const hash = await suppression.addressHash(deps, email);
  let emptied = 0;
  for (const pointer of await queryAll(deps.store, { pk: referralsOf(hash) })) {
    try {
      await deps.store.update(inboundKey(String(pointer.replyId)), { set: { referral: null }, if: { itemExists: true } });
      emptied++;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
    await deps.store.delete({ pk: pointer.pk, sk: pointer.sk });
  }
  return emptied;
}
