import { describe, expect, it } from 'vitest';
import { ManualClock, scaledClock } from './clock.ts';

describe('scaledClock', () => {
  it('runs TIME_SCALE times faster than its base from the moment it is made', () => {
    const wall = new ManualClock(1_000_000);
    const engine = scaledClock(60, wall);
    expect(engine.now()).toBe(1_000_000);
    wall.advance(1000);
    expect(engine.now()).toBe(1_060_000);
  });

  it('refuses a scale below 1', () => {
    expect(() => scaledClock(0.5)).toThrow(/at least 1/);
    expect(() => scaledClock(Number.NaN)).toThrow(/at least 1/);
  });
});
