/**
 * Clock port. `now()` is engine time in epoch milliseconds. Locally the
 * engine clock may run TIME_SCALE times faster than the wall; tokens,
 * lockouts and rate-limit windows use a wall clock (README, Configuration: TIME_SCALE).
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that runs `scale` times faster than `base` from the moment it is made. */
export function scaledClock(scale: number, base: Clock = systemClock): Clock {
  if (!(scale >= 1)) throw new Error('TIME_SCALE must be a number of at least 1.');
  const start = base.now();
  return { now: () => start + Math.floor((base.now() - start) * scale) };
}

/** A clock tests move by hand, so no test sleeps to let time pass. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}
