import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { allCampaigns, campaignKey } from './keys.ts';
import { fromItem } from './entity.ts';

/** A deleted mailbox leaves every campaign that picked it; new mailboxes are never added on their own. */
export async function dropMailbox(deps: Pick<Deps, 'store' | 'wallClock'>, mailboxId: string): Promise<void> {
  const campaigns = await queryAll(deps.store, allCampaigns());
  for (const c of campaigns.map(fromItem)) {
    const ids = c.mailboxIds;
    if (!ids.includes(mailboxId)) continue;
    await deps.store.update(campaignKey(c.id), {
      set: { mailboxIds: ids.filter((id) => id !== mailboxId), updatedAt: new Date(deps.wallClock.now()).toISOString() },
    });
  }
}
