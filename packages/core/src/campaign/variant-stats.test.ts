import { describe, expect, it } from 'vitest';
import { alwaysValidP, holm, judge, MIN_SENT, type Arm } from './variant-stats.ts';

const arm = (positive: number, sent: number): Arm => ({ positive, sent });

/** A seeded generator (Park-Miller), so the simulation is the same at every run. */
function seeded(seed: number) {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) - 1) / 2147483646;
}

describe('the variants test', () => {
  it('names a winner for 30/110 against 3/110', () => {
    const v = judge([arm(30, 110), arm(3, 110)]);
    expect(v.winner).toBe(0);
    expect(v.adjusted[1]).toBeLessThan(0.01);
  });

  it('names none for 31/1000 against 40/1000 (noise)', () => {
    const v = judge([arm(31, 1000), arm(40, 1000)]);
    expect(v.leader).toBe(1);
    expect(v.winner).toBeNull();
  });

  it('names none before every variant has the minimum sent, however clear the gap', () => {
    expect(judge([arm(40, MIN_SENT - 1), arm(1, 200)]).winner).toBeNull();
    expect(judge([arm(40, MIN_SENT), arm(1, 200)]).winner).toBe(0);
  });

  it('names none on a tie for the top, nor with nothing positive', () => {
    expect(judge([arm(20, 200), arm(20, 200), arm(0, 200)]).winner).toBeNull();
    expect(judge([arm(0, 500), arm(0, 500)]).winner).toBeNull();
    expect(alwaysValidP(arm(0, 500), arm(0, 500))).toBe(1);
  });

  it('is two-sided: the p-value does not depend on which arm is ahead', () => {
    expect(alwaysValidP(arm(30, 110), arm(3, 110))).toBeCloseTo(alwaysValidP(arm(3, 110), arm(30, 110)), 12);
  });

  it('corrects six arms: each comparison alone passes at 0.05, Holm over the five does not', () => {
    const six = [arm(100, 1000), arm(60, 1000), arm(58, 1000), arm(62, 1000), arm(55, 1000), arm(61, 1000)];
    const raw = six.slice(1).map((b) => alwaysValidP(six[0]!, b));
    // Uncorrected, the leader beats every other variant at 0.05...
    expect(raw.every((p) => p <= 0.05)).toBe(true);
    // ...but not once the five comparisons are corrected.
    const v = judge(six);
    expect(v.leader).toBe(0);
    expect(v.winner).toBeNull();
    // A clearer leader passes Holm too.
    expect(judge([arm(130, 1000), ...six.slice(1)]).winner).toBe(0);
  });

  it("Holm's adjusted values step down and stay ordered", () => {
    expect(holm([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holm([0.2, 0.001])).toEqual([0.2, 0.002]);
  });

  it('keeps the false-winner rate under 5 % under the null, looked at again and again', () => {
    // Equal rates; the figures are judged after every 5 sends per arm, up to 2,000 each, as the engine looks at them as they change.
    const random = seeded(20261127);
    const cases = [
      { arms: 2, rate: 0.05, runs: 300 },
      { arms: 2, rate: 0.3, runs: 150 },
      { arms: 6, rate: 0.05, runs: 60 },
    ];
    for (const c of cases) {
      let falseWinners = 0;
      for (let run = 0; run < c.runs; run++) {
        const arms = Array.from({ length: c.arms }, () => arm(0, 0));
        for (let n = 1; n <= 2000; n++) {
          for (const a of arms) {
            a.sent++;
            if (random() < c.rate) a.positive++;
          }
          // Once named it stays: a run that ever names a winner counts as a false one.
          if (n % 5 === 0 && judge(arms).winner !== null) {
            falseWinners++;
            break;
          }
        }
      }
      expect(falseWinners / c.runs, `${c.arms} arms at ${c.rate}`).toBeLessThan(0.05);
    }
  });

  it('finds a real difference as the figures grow (the test has power)', () => {
    const random = seeded(7);
    let found = 0;
    for (let run = 0; run < 40; run++) {
      const arms = [arm(0, 0), arm(0, 0)];
      for (let n = 1; n <= 3000; n++) {
        arms[0]!.sent++;
        arms[1]!.sent++;
        if (random() < 0.08) arms[0]!.positive++;
        if (random() < 0.03) arms[1]!.positive++;
        if (n % 10 === 0 && judge(arms).winner === 0) {
          found++;
          break;
        }
      }
    }
    expect(found / 40).toBeGreaterThan(0.8);
  });
});
