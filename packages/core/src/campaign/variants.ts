/**
 * Variants of a campaign's first email (docs/sending.md, Variants): which
 * variant a lead's first email gets, the figures per variant, and the winner.
 * The figures are counters on the campaign item (campaign/keys.ts,
 * VARIANT_FIGURES), each moved in the transaction of the fact it counts, so
 * reading them is one get whatever the campaign's size.
 */
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import type { Condition, TransactOp } from '../ports/store.ts';
import { eventOps } from '../webhooks/events.ts';
import { campaignKey, counter } from './keys.ts';
import { fromItem, variantCount, type Campaign, type StoredVariant } from './entity.ts';
import { judge, METHOD, type Arm } from './variant-stats.ts';
import { NotFoundError } from '../errors.ts';

/** The reply statuses that count a lead as positive. */
export const POSITIVE_STATUSES: ReadonlySet<string> = new Set(['INTERESTED', 'MEETING_BOOKED', 'WON']);

/** A first email's variant: its index, its copy, and (when the lead gets it now) the claim's write that counts it. */
export interface VariantChoice {
  index: number;
  copy: StoredVariant;
  /** The lead is given the variant by this claim: the lead row takes it, and `op` counts it under the balance's condition. */
  fresh: boolean;
  op?: TransactOp;
}

/** The variants a claim composed from are still the campaign's (a PATCH before any first email may replace them). */
const sameVariants = (c: Campaign): Condition =>
  c.variantsId ? { attr: 'variantsId', op: '=', value: c.variantsId } : { attr: 'variantsId', exists: false };

/**
 * The variant of a lead's first email, from the campaign row the send read
 * already (no read of its own): the one the lead was given, if any; else the
 * winner when `autoWinner` holds and one is named; else one at random among
 * those whose `assigned` count is at most one above the lowest. The claim
 * counts it only while that count still is (counts only grow, so each
 * variant stays within 2 of every other, whatever runs at once); a claim
 * refused for it reads the campaign again and chooses again.
 */
export function chooseVariant(c: Campaign, lead: { variant?: number }, random: () => number): VariantChoice | undefined {
  const variants = c.variants ?? [];
  if (!variants.length) return undefined;
  const kept = lead.variant;
  if (kept !== undefined && variants[kept]) return { index: kept, copy: variants[kept], fresh: false };
  const count = (index: number, balance?: Condition): TransactOp => ({
    update: campaignKey(c.id),
    change: { add: { [counter.variant(index, 'assigned')]: 1 }, if: balance ? { and: [sameVariants(c), balance] } : sameVariants(c) },
  });
  if (c.autoWinner && c.winner !== undefined && variants[c.winner]) {
    return { index: c.winner, copy: variants[c.winner]!, fresh: true, op: count(c.winner) };
  }
  const assigned = variants.map((_, i) => variantCount(c, i, 'assigned'));
  const ceiling = Math.min(...assigned) + 1;
  const open = assigned.flatMap((n, i) => (n <= ceiling ? [i] : []));
  const index = open[Math.min(open.length - 1, Math.floor(random() * open.length))]!;
  const attr = counter.variant(index, 'assigned');
  return {
    index,
    copy: variants[index]!,
    fresh: true,
    op: count(index, {
      or: [
        { attr, exists: false },
        { attr, op: '<=', value: ceiling },
      ],
    }),
  };
}

/** The test's arms, from the campaign's counters. */
export const armsOf = (c: Campaign): Arm[] =>
  (c.variants ?? []).map((_, i) => ({ sent: variantCount(c, i, 'sent'), positive: variantCount(c, i, 'positive') }));

/**
 * Names the winner when the figures name one and none is named yet: stored
 * on the campaign (it stays, whatever the figures do later) with its
 * `campaign.winner` event, in one transaction conditioned on no winner, so
 * it is named once however many writers look at once. `arms` are the figures
 * the caller knows (a send's record adds its own to what it read); the
 * campaign's counters otherwise. Answers the winner (null while none).
 */
export async function nameWinnerIfDue(
  deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>,
  c: Campaign,
  arms = armsOf(c),
): Promise<number | null> {
  if (c.winner !== undefined) return c.winner;
  if (!c.variants?.length) return null;
  const { winner } = judge(arms);
  if (winner === null) return null;
  const event = await eventOps(deps, 'campaign.winner', { campaignId: c.id, winner, method: METHOD }, `${campaignKey(c.id).pk}#WINNER`);
  const at = new Date(deps.clock.now()).toISOString();
  try {
    await deps.store.transact([
      {
        update: campaignKey(c.id),
        change: { set: { winner, winnerAt: at }, if: { and: [{ itemExists: true }, { attr: 'winner', exists: false }] } },
      },
      ...event,
    ]);
    deps.log.info('variants: a winner is named', { campaignId: c.id, winner });
    return winner;
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    // Named by another writer meanwhile (or the campaign is gone): the stored one stands.
    const row = await deps.store.get(campaignKey(c.id));
    return row ? (fromItem(row).winner ?? null) : null;
  }
}

/**
 * After a first email of a variant is recorded: the figures the send read
 * plus this send are judged in memory, and only a new winner costs a write
 * (once per campaign), so the send path keeps its four requests.
 */
export async function afterFirstSent(
  deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>,
  c: Campaign,
  variant: number,
): Promise<void> {
  if (c.winner !== undefined || !c.variants?.[variant]) return;
  const arms = armsOf(c);
  arms[variant] = { ...arms[variant]!, sent: arms[variant]!.sent + 1 };
  await nameWinnerIfDue(deps, c, arms);
}

/** The campaign read again, then judged: after a positive count moved (a reply read, a person's change). */
export async function judgeCampaign(deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>, campaignId: string): Promise<void> {
  const row = await deps.store.get(campaignKey(campaignId), { consistent: true });
  if (row) await nameWinnerIfDue(deps, fromItem(row));
}

export interface VariantFiguresView {
  variants: { index: number; subject: string; sent: number; replied: number; positive: number; bounced: number; unsubscribed: number }[];
  winner: number | null;
  method: string;
}

/** GET /v1/campaigns/{id}/variants: each variant's figures, the winner (null until named) and the test, in a sentence. */
export async function figures(deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>, campaignId: string): Promise<VariantFiguresView> {
  const row = await deps.store.get(campaignKey(campaignId), { consistent: true });
  if (!row) throw new NotFoundError(`There is no campaign ${campaignId}.`);
  const c = fromItem(row);
  // Looking is one more look: a winner the figures name now and no writer stored yet is named here.
  const winner = await nameWinnerIfDue(deps, c);
  return {
    variants: (c.variants ?? []).map((v, index) => ({
      index,
      subject: v.subject,
      sent: variantCount(c, index, 'sent'),
      replied: variantCount(c, index, 'replied'),
      positive: variantCount(c, index, 'positive'),
      bounced: variantCount(c, index, 'bounced'),
      unsubscribed: variantCount(c, index, 'unsubscribed'),
    })),
    winner,
    method: METHOD,
  };
}
