import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import { leadKey, leadsPinnedTo, rowsOfAddress, withoutPinIndex } from './keys.ts';
import { fromItem, keyedFromItem, LEAD_STATUSES, type Lead, type LeadStatus } from './entity.ts';

export { LEAD_STATUSES, type LeadStatus };

/** Statuses after which nothing more is sent to the lead. */
export const FINAL: ReadonlySet<string> = new Set(['REPLIED', 'BOUNCED', 'COMPLETED', 'SUPPRESSED']);

/**
 * Moves a lead to a new status and its campaign's status counters with it,
 * in one transaction conditioned on the status it had, so two writers
 * cannot both count the same move. A lead in a final state stays there
 * (SUPPRESSED may still replace the others). Returns false when the lead
 * had already moved.
 */
export async function transition(
  deps: Pick<Deps, 'store' | 'wallClock'>,
  lead: Lead,
  to: LeadStatus,
  extra: { set?: Record<string, unknown>; remove?: string[]; campaign?: { add?: Record<string, number>; set?: Record<string, unknown> } } = {},
): Promise<boolean> {
  const from = lead.status;
  // A reply or bounce after the last step still counts; nothing leaves SUPPRESSED.
  const reopens = from === 'COMPLETED' && (to === 'REPLIED' || to === 'BOUNCED');
  if (from === to || from === 'SUPPRESSED' || (FINAL.has(from) && to !== 'SUPPRESSED' && !reopens)) return false;
  try {
    await deps.store.transact([
      {
        update: leadKey(lead.id),
        change: {
          set: { status: to, updatedAt: new Date(deps.wallClock.now()).toISOString(), ...extra.set },
          remove: extra.remove,
          if: { attr: 'status', op: '=', value: from },
        },
      },
      {
        update: campaignKey(lead.campaignId),
        // What else the move counts on the campaign (a reply's repliesCount), in the same write so it counts once.
        change: { add: { [counter.status(from)]: -1, [counter.status(to)]: 1, ...extra.campaign?.add }, ...(extra.campaign?.set ? { set: extra.campaign.set } : {}) },
      },
    ]);
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** Every lead row of an address, across campaigns (each with the key it was read under). */
export const rowsOf = async (deps: Pick<Deps, 'store'>, email: string) =>
  (await queryAll(deps.store, rowsOfAddress(email))).map(keyedFromItem);

/** Suppression stops every campaign's sequence for the address at once; `except` keeps one row's own status (a bounce). */
export async function suppressEverywhere(deps: Pick<Deps, 'store' | 'wallClock'>, email: string, except?: string): Promise<void> {
  for (const lead of await rowsOf(deps, email)) {
    if (lead.id !== except) await transition(deps, lead, 'SUPPRESSED', { remove: withoutPinIndex() });
  }
}

/** A deleted mailbox ends the sequences of the leads pinned to it (docs/api.md, Campaigns). */
export async function endForMailbox(deps: Pick<Deps, 'store' | 'wallClock'>, mailboxId: string): Promise<void> {
  const pinned = await queryAll(deps.store, leadsPinnedTo(mailboxId));
  for (const lead of pinned.map(fromItem)) {
    await transition(deps, lead, 'COMPLETED', { set: { endedBy: 'MAILBOX_DELETED' }, remove: withoutPinIndex() });
  }
}
