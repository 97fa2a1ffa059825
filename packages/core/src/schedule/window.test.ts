import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DAYS, isOpen, nextOpen, type Day, type Window } from './window.ts';

/*
 * The oracle shares no code with window.ts: it reads offsets through
 * formatToParts, builds each zone's table of transitions once by scanning and
 * bisection, and then decides openness from that table alone. Every offset and
 * transition in the years tested is a whole number of minutes (checked below),
 * and window bounds are whole minutes, so openness can only change on a UTC
 * minute boundary: checking `t` and every minute boundary before the answer
 * proves there is no earlier opening.
 */

const MIN = 60_000;
const DAY = 86_400_000;
const FROM = Date.UTC(2020, 0, 1);
const TO = Date.UTC(2035, 0, 1);

const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Australia/Lord_Howe',
  'America/St_Johns',
  'America/Santiago',
  'Africa/Casablanca',
  'Europe/London',
  'UTC',
];

const oracleFormats = new Map<string, Intl.DateTimeFormat>();
function partsOffset(zone: string, t: number): number {
  let fmt = oracleFormats.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    oracleFormats.set(zone, fmt);
  }
  const p = Object.fromEntries(fmt.formatToParts(new Date(t)).map((x) => [x.type, Number(x.value)]));
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(t / 1000) * 1000;
}

interface Table {
  at: number[]; // at[i]: first ms of the i-th stretch
  off: number[];
}

function transitionsOf(zone: string): Table {
  const at = [FROM - 10 * DAY];
  const off = [partsOffset(zone, at[0]!)];
  // None of these zones changes its offset twice within 5 days in these years (Casablanca's Ramadan hour is the closest: a month).
  const STEP = 5 * DAY;
  for (let t = at[0]! + STEP; t <= TO + 20 * DAY; t += STEP) {
    const o = partsOffset(zone, t);
    if (o === off[off.length - 1]) continue;
    let lo = (t - STEP) / 1000;
    let hi = t / 1000;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (partsOffset(zone, mid * 1000) === off[off.length - 1]) lo = mid;
      else hi = mid;
    }
    at.push(hi * 1000);
    off.push(o);
  }
  return { at, off };
}

const tables = new Map(ZONES.map((z) => [z, transitionsOf(z)]));

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
const WEEK: Day[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** The window as numbers: start and end minute of the day, and a bit for each allowed weekday (0 = Sunday). */
function plain(w: Window) {
  return { s: toMinutes(w.start), e: toMinutes(w.end), mask: w.days.reduce((m, d) => m | (1 << WEEK.indexOf(d)), 0) };
}

/** Openness at minute-aligned or any t, with the index of t's stretch in the table kept by the caller. */
function oracleOpen(w: ReturnType<typeof plain>, table: Table, t: number, i: number): boolean {
  const minutes = Math.floor((t + table.off[i]!) / MIN);
  const minute = ((minutes % 1440) + 1440) % 1440;
  const weekday = (((Math.floor(minutes / 1440) + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  return minute >= w.s && minute < w.e && (w.mask & (1 << weekday)) !== 0;
}

function stretch(table: Table, t: number): number {
  let i = 0;
  while (i + 1 < table.at.length && table.at[i + 1]! <= t) i++;
  return i;
}

describe('the oracle', () => {
  it('finds the known transitions and only whole-minute offsets', () => {
    const ny = tables.get('America/New_York')!;
    expect(ny.at).toContain(Date.UTC(2026, 2, 8, 7)); // 02:00 EST -> 03:00 EDT
    expect(ny.at).toContain(Date.UTC(2026, 10, 1, 6)); // 02:00 EDT -> 01:00 EST
    expect(tables.get('Pacific/Chatham')!.off).toEqual(expect.arrayContaining([765 * MIN, 825 * MIN]));
    expect(tables.get('Asia/Kathmandu')!.off).toEqual([345 * MIN]);
    for (const t of tables.values()) {
      for (const x of [...t.at.slice(1), ...t.off]) expect(Math.abs(x % MIN)).toBe(0);
    }
  });
});

describe('nextOpen, property', () => {
  const minuteOfDay = fc.oneof(
    fc.integer({ min: 0, max: 1439 }),
    // Near the hours daylight saving skips or repeats, and at the half and quarter hours of odd offsets.
    fc.constantFrom(...['00:00', '01:00', '01:30', '01:59', '02:00', '02:30', '02:45', '03:00', '03:45', '23:59'].map(toMinutes)),
  );
  const window = fc
    .tuple(minuteOfDay, fc.integer({ min: 1, max: 1440 }), fc.subarray(WEEK, { minLength: 1 }))
    .map(([start, len, days]): Window => ({ start: hhmm(start), end: hhmm(Math.min(1440, start + len)), days }));
  const instantArb = (zone: string) => {
    const at = tables.get(zone)!.at.filter((x) => x > FROM && x < TO);
    const uniform = fc.integer({ min: FROM, max: TO });
    if (!at.length) return uniform;
    const near = fc
      .tuple(
        fc.constantFrom(...at),
        fc.oneof(fc.integer({ min: -3 * DAY, max: 3 * DAY }), fc.integer({ min: -2 * MIN, max: 2 * MIN }), fc.constant(0)),
      )
      .map(([x, d]) => x + d);
    return fc.oneof(uniform, near, near);
  };
  const instant = new Map(ZONES.map((z) => [z, instantArb(z)]));
  const cases = fc.constantFrom(...ZONES).chain((zone) => fc.record({ zone: fc.constant(zone), window, t: instant.get(zone)! }));

  it('lands inside the window on an allowed day, with no earlier opening (10,000 cases)', () => {
    fc.assert(
      fc.property(cases, ({ zone, window: w, t }) => {
        const table = tables.get(zone)!;
        const p = plain(w);
        const r = nextOpen(w, zone, t);
        expect(r).toBeGreaterThanOrEqual(t);
        expect(oracleOpen(p, table, r, stretch(table, r))).toBe(true);
        expect(isOpen(w, zone, r)).toBe(true);
        if (r === t) return;
        expect(r % MIN).toBe(0);
        let i = stretch(table, t);
        expect(oracleOpen(p, table, t, i)).toBe(false);
        // Minute by minute up to the answer, the local clock advanced by hand and set again at each transition.
        let minute = 0;
        let weekday = 0;
        for (let m = Math.ceil(t / MIN) * MIN, set = true; m < r; m += MIN) {
          while (i + 1 < table.at.length && table.at[i + 1]! <= m) {
            i++;
            set = true;
          }
          if (set) {
            const local = Math.floor((m + table.off[i]!) / MIN);
            minute = ((local % 1440) + 1440) % 1440;
            weekday = (((Math.floor(local / 1440) + 4) % 7) + 7) % 7;
            set = false;
          }
          if (minute >= p.s && minute < p.e && (p.mask & (1 << weekday)) !== 0) {
            expect.fail(
              `${zone} ${JSON.stringify(w)} from ${new Date(t).toISOString()}: open at ${new Date(m).toISOString()}, answered ${new Date(r).toISOString()}`,
            );
          }
          if (++minute === 1440) {
            minute = 0;
            weekday = (weekday + 1) % 7;
          }
        }
        expect(isOpen(w, zone, t)).toBe(false);
      }),
      { numRuns: 10_000 },
    );
  });
});

describe('nextOpen, the cases that break schedulers', () => {
  const at = (iso: string) => Date.parse(iso);
  const iso = (ms: number) => new Date(ms).toISOString();
  const w = (start: string, end: string, days: Day[] = [...DAYS]): Window => ({ start, end, days });

  it('a start in the skipped hour opens when the clock jumps (New York, 2026-03-08)', () => {
    expect(iso(nextOpen(w('02:30', '04:00'), 'America/New_York', at('2026-03-08T05:00:00Z')))).toBe('2026-03-08T07:00:00.000Z');
  });

  it('a window wholly inside the skipped hour waits for the next allowed day', () => {
    expect(iso(nextOpen(w('02:10', '02:50', ['sun']), 'America/New_York', at('2026-03-08T05:00:00Z')))).toBe('2026-03-15T06:10:00.000Z');
  });

  it('a start in the repeated hour opens at its first occurrence (New York, 2026-11-01)', () => {
    expect(iso(nextOpen(w('01:30', '03:00'), 'America/New_York', at('2026-11-01T04:00:00Z')))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('a clock set back into the window opens at the change', () => {
    // 01:45 EDT is after a 00:00-01:30 window; at 06:00 UTC it is 01:00 EST, inside it again.
    expect(iso(nextOpen(w('00:00', '01:30'), 'America/New_York', at('2026-11-01T05:45:00Z')))).toBe('2026-11-01T06:00:00.000Z');
  });

  it('follows half-hour and 45-minute offsets', () => {
    expect(iso(nextOpen(w('09:00', '17:00'), 'Asia/Kolkata', at('2026-06-01T00:00:00Z')))).toBe('2026-06-01T03:30:00.000Z');
    expect(iso(nextOpen(w('09:00', '17:00'), 'Asia/Kathmandu', at('2026-06-01T00:00:00Z')))).toBe('2026-06-01T03:15:00.000Z');
    // Chatham in June is +12:45: 09:00 local on Tuesday 2 June is 20:15 UTC on Monday.
    expect(iso(nextOpen(w('09:00', '17:00', ['tue']), 'Pacific/Chatham', at('2026-06-01T00:00:00Z')))).toBe('2026-06-01T20:15:00.000Z');
  });

  it('counts days in local time: a Monday window in Sydney opens on Sunday in UTC', () => {
    expect(iso(nextOpen(w('09:00', '10:00', ['mon']), 'Australia/Sydney', at('2026-06-03T00:00:00Z')))).toBe('2026-06-07T23:00:00.000Z');
  });

  it('start is inclusive, end exclusive, and 24:00 ends the day', () => {
    const win = w('09:00', '17:00');
    expect(isOpen(win, 'Europe/Berlin', at('2026-06-01T07:00:00Z'))).toBe(true);
    expect(isOpen(win, 'Europe/Berlin', at('2026-06-01T06:59:59.999Z'))).toBe(false);
    expect(isOpen(win, 'Europe/Berlin', at('2026-06-01T15:00:00Z'))).toBe(false);
    expect(isOpen(win, 'Europe/Berlin', at('2026-06-01T14:59:59.999Z'))).toBe(true);
    expect(isOpen(w('20:00', '24:00'), 'UTC', at('2026-06-01T23:59:59.999Z'))).toBe(true);
    expect(iso(nextOpen(w('20:00', '24:00'), 'UTC', at('2026-06-02T00:00:00Z')))).toBe('2026-06-02T20:00:00.000Z');
  });

  it('returns t itself when open, to the millisecond', () => {
    const t = at('2026-06-01T10:00:00.123Z');
    expect(nextOpen(w('09:00', '17:00'), 'UTC', t)).toBe(t);
  });
});
