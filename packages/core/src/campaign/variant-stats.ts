/**
 * Which variant of a first email wins, judged on positive replies with a test
 * that stays valid however often the figures are looked at (docs/sending.md,
 * Variants). Pure: no store, no clock, no randomness.
 *
 * The test is the mixture sequential probability ratio test (mSPRT) of
 * Johari, Pekelis and Walsh ("Always valid inference", 2017/2022) on the
 * difference of two proportions, with a normal mixing distribution of scale
 * MIXING_SCALE. Its likelihood ratio is a nonnegative martingale under the
 * null, so by Ville's inequality the chance that 1/Λ ever falls to α, at any
 * of any number of looks, is at most α: the p-value 1/Λ is "always valid".
 * The leader (the highest positive rate) is compared with each other variant,
 * and Holm's step-down corrects those k−1 comparisons.
 */

/** The family-wise error rate: 95 % confidence, two-sided. */
export const ALPHA = 0.05;
/** No variant is named before every variant has this many first emails sent. */
export const MIN_SENT = 100;
/**
 * τ, the standard deviation of the normal mixture over the difference of
 * positive-reply rates (absolute, so 0.05 is five percentage points). Fixed
 * in advance, never tuned on the figures (the test's validity needs that);
 * docs/sending.md says why this value.
 */
export const MIXING_SCALE = 0.05;

export const METHOD =
  `Mixture sequential probability ratio test (normal mixture, tau = ${MIXING_SCALE}) on the difference of positive-reply rates, ` +
  `always-valid two-sided p-values, Holm-corrected over the leader's comparisons with each other variant at alpha = ${ALPHA}, ` +
  `every variant with at least ${MIN_SENT} first emails sent; opens are never counted.`;

/** One arm's figures: leads sent its first email, and those of them with a positive reply. */
export interface Arm {
  sent: number;
  positive: number;
}

/**
 * The always-valid two-sided p-value of "these two arms have the same
 * positive rate", at this look: 1/Λ, capped at 1. Λ is the mSPRT's mixture
 * likelihood ratio for the difference of rates θ̂ with its variance σ² taken
 * under the null (the pooled rate), against a N(0, τ²) mixture over θ:
 *   Λ = sqrt(σ² / (σ² + τ²)) · exp(θ̂² τ² / (2 σ² (σ² + τ²))).
 * Taken at the current look only, not as the running minimum over earlier
 * looks: that is never smaller, so it is as valid and a little stricter;
 * what stays is the winner once named (the caller stores it).
 */
export function alwaysValidP(a: Arm, b: Arm, tau = MIXING_SCALE): number {
  if (a.sent <= 0 || b.sent <= 0) return 1;
  const pooled = (a.positive + b.positive) / (a.sent + b.sent);
  const variance = pooled * (1 - pooled) * (1 / a.sent + 1 / b.sent);
  // Nothing positive anywhere (or everything): no evidence either way.
  if (!(variance > 0)) return 1;
  const diff = a.positive / a.sent - b.positive / b.sent;
  const t2 = tau * tau;
  const logLambda = 0.5 * Math.log(variance / (variance + t2)) + (diff * diff * t2) / (2 * variance * (variance + t2));
  return Math.min(1, Math.exp(-logLambda));
}

/**
 * Holm's step-down adjusted p-values, in the order given: each comparison is
 * rejected at level α when its adjusted value is at most α.
 */
export function holm(pValues: number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

export interface Verdict {
  /** The index of the variant whose positive rate beats every other's, or null. */
  winner: number | null;
  /** The variant with the highest positive rate (null while there is a tie for the top, or nothing sent). */
  leader: number | null;
  /** Holm-adjusted always-valid p-value of the leader against each variant (null for the leader itself, and when there is no leader). */
  adjusted: (number | null)[];
}

/**
 * The verdict on the figures as they are now: a winner only when every
 * variant has MIN_SENT sent, one variant's positive rate is strictly the
 * highest, and every one of its k−1 comparisons is rejected by Holm at ALPHA.
 */
export function judge(arms: Arm[], alpha = ALPHA, minSent = MIN_SENT, tau = MIXING_SCALE): Verdict {
  const none: Verdict = { winner: null, leader: null, adjusted: arms.map(() => null) };
  if (arms.length < 2 || arms.some((a) => a.sent <= 0)) return none;
  const rates = arms.map((a) => a.positive / a.sent);
  const top = Math.max(...rates);
  const leaders = rates.flatMap((r, i) => (r === top ? [i] : []));
  if (leaders.length !== 1) return none;
  const leader = leaders[0]!;
  const others = arms.flatMap((_, i) => (i === leader ? [] : [i]));
  const adjusted = holm(others.map((i) => alwaysValidP(arms[leader]!, arms[i]!, tau)));
  const byArm: (number | null)[] = arms.map(() => null);
  others.forEach((i, j) => (byArm[i] = adjusted[j]!));
  const enough = arms.every((a) => a.sent >= minSent);
  const winner = enough && adjusted.every((p) => p <= alpha) ? leader : null;
  return { winner, leader, adjusted: byArm };
}
