import type { Deps } from '../deps.ts';
import { queryAll } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import type { Condition, TransactOp } from '../ports/store.ts';
import { campaignKey, counter, type VariantFigure } from '../campaign/keys.ts';
import { leadKey, leadsPinnedTo, rowsOfAddress, withoutPinIndex } from './keys.ts';
import { fromItem, keyedFromItem, LEAD_STATUSES, type Lead, type LeadStatus } from './entity.ts';

export { LEAD_STATUSES, type LeadStatus };

/**
 * "Can still be sent to": the statuses a sequence still sends from, defined
 * here once. The set is for a lead already read; `sendableIf` is the same
 * rule as a store condition, held by the claim and the start of SMTP. The
 * others are final (FINAL).
 */
export const SENDABLE: ReadonlySet<LeadStatus> = new Set<LeadStatus>(['NEW', 'CONTACTED']);
/** Statuses after which nothing more is sent to the lead. */
export const FINAL: ReadonlySet<string> = new Set(LEAD_STATUSES.filter((s) => !SENDABLE.has(s)));
/** Whether a lead read from the store can still be sent to. */
export const sendable = (lead: Pick<Lead, 'status' | 'erased'>): boolean => SENDABLE.has(lead.status) && !lead.erased;
/** `sendable` as a condition on the lead's row. */
export const sendableIf = (): Condition => ({
  and: [{ or: [...SENDABLE].map((value) => ({ attr: 'status', op: '=' as const, value })) }, { attr: 'erased', exists: false }],
});

/** Whether a lead may move between these statuses: a final state stays (SUPPRESSED may still replace the others, nothing leaves it). */
export function canMove(from: LeadStatus, to: LeadStatus): boolean {
  // A reply or bounce after the last step still counts.
  const reopens = from === 'COMPLETED' && (to === 'REPLIED' || to === 'BOUNCED');
  return !(from === to || from === 'SUPPRESSED' || (FINAL.has(from) && to !== 'SUPPRESSED' && !reopens));
}

/** A figure of the lead's variant moved by one, for a campaign counter ADD: nothing for a lead never given one. */
export const variantAdd = (lead: Pick<Lead, 'variant'>, figure: VariantFigure): Record<string, number> =>
  lead.variant === undefined ? {} : { [counter.variant(lead.variant, figure)]: 1 };

/** The statuses a lead enters once that count for its variant (docs/sending.md, Variants). */
const VARIANT_FIGURE_OF: Partial<Record<LeadStatus, VariantFigure>> = { REPLIED: 'replied', BOUNCED: 'bounced' };

export interface StatusChange {
  set?: Record<string, unknown>;
  remove?: string[];
  /** More that must hold on the lead's row (besides the status it had). */
  if?: Condition[];
  campaign?: { add?: Record<string, number>; set?: Record<string, unknown> };
  /** The time written as the row's updatedAt when the status moves (ISO); the wall clock when absent. */
  at?: string;
}

/**
 * The writes of a status move, for a caller's transaction: the lead row
 * conditioned on the status it had, and its campaign's status counters with
 * it, so two writers cannot both count the same move. When the rules refuse
 * the move the row still gets `change.set`, under the same condition, and the
 * counters do not move: `moves` says which.
 */
export function statusOps(lead: Lead, to: LeadStatus, change: StatusChange, wallNow: number): { ops: TransactOp[]; moves: boolean } {
  const from = lead.status;
  const moves = canMove(from, to);
  const status = moves ? { status: to, updatedAt: change.at ?? new Date(wallNow).toISOString() } : {};
  const held: Condition = { attr: 'status', op: '=', value: from };
  const figure = VARIANT_FIGURE_OF[to];
  // A lead enters REPLIED or BOUNCED at most once (a final status is never left for another), so its variant counts it once.
  const counters = moves ? { [counter.status(from)]: -1, [counter.status(to)]: 1, ...(figure ? variantAdd(lead, figure) : {}) } : {};
  return {
    moves,
    ops: [
      {
        update: leadKey(lead.id),
        change: { set: { ...status, ...change.set }, remove: change.remove, if: change.if?.length ? { and: [held, ...change.if] } : held },
      },
      {
        update: campaignKey(lead.campaignId),
        // What else the move counts on the campaign (a reply's repliesCount), in the same write so it counts once.
        change: { add: { ...counters, ...change.campaign?.add }, ...(change.campaign?.set ? { set: change.campaign.set } : {}) },
      },
    ],
  };
}

/**
 * Moves a lead to a new status and its campaign's status counters with it,
 * in one transaction conditioned on the status it had (statusOps). Returns
 * false when the lead had already moved or may not move there.
 */
export async function transition(
  deps: Pick<Deps, 'store' | 'wallClock'>,
  lead: Lead,
  to: LeadStatus,
  extra: {
    set?: Record<string, unknown>;
    remove?: string[];
    campaign?: { add?: Record<string, number>; set?: Record<string, unknown> };
  } = {},
  also: TransactOp[] = [],
): Promise<boolean> {
  const { ops, moves } = statusOps(lead, to, extra, deps.wallClock.now());
  if (!moves) return false;
  try {
    await deps.store.transact([...ops, ...also]);
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** Every lead row of an address, across campaigns (each with the key it was read under). */
export const rowsOf = async (deps: Pick<Deps, 'store'>, email: string) =>
  (await queryAll(deps.store, rowsOfAddress(email))).map(keyedFromItem);

/** A deleted mailbox ends the sequences of the leads pinned to it (docs/api.md, Campaigns). */
export async function endForMailbox(deps: Pick<Deps, 'store' | 'wallClock'>, mailboxId: string): Promise<void> {
  const pinned = await queryAll(deps.store, leadsPinnedTo(mailboxId));
  for (const lead of pinned.map(fromItem)) {
    await transition(deps, lead, 'COMPLETED', { set: { endedBy: 'MAILBOX_DELETED' }, remove: withoutPinIndex() });
  }
}
