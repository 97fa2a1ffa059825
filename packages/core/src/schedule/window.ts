/**
 * When a send may start: local wall-clock windows in an IANA zone.
 *
 * Pure functions of (window, zone, engine ms). Only Intl is used: it carries the
 * IANA database Node ships, daylight-saving rules included, so no date library
 * and no table of offsets can drift from it.
 *
 * The open set in instant space is a union of intervals. Between two offset
 * transitions local time is `t + offset`, so within such a stretch the next
 * opening is plain arithmetic; a transition met on the way is found by
 * bisection and the search goes on from it. That makes a window start in a
 * skipped hour open at the first instant after the gap, a start in a repeated
 * hour open at its first occurrence, and a clock set back into the window open
 * at the transition itself.
 */

export const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Day = (typeof DAYS)[number];

/** The part of a schedule that says when: local days and `HH:MM` wall times, `start` inclusive, `end` exclusive. */
export interface Window {
  days: readonly Day[];
  start: string;
  end: string;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Compiled {
  /** Bit d set when weekday d (0 = Sunday) is allowed. */
  mask: number;
  startMs: number;
  endMs: number;
}

/** `HH:MM` to ms after local midnight; `24:00` is the end of the day. */
export function wallMs(hhmm: string): number {
  const m = /^(\d\d):(\d\d)$/.exec(hhmm);
  if (!m) throw new RangeError(`Not a HH:MM time: ${hhmm}`);
  return (Number(m[1]) * 60 + Number(m[2])) * MINUTE_MS;
}

// Schedules are long-lived objects read for every job: compile each once.
const compiledCache = new WeakMap<Window, Compiled>();
function compile(w: Window): Compiled {
  let c = compiledCache.get(w);
  if (!c) {
    let mask = 0;
    for (const d of w.days) {
      const i = DAYS.indexOf(d);
      if (i < 0) throw new RangeError(`Not a day: ${d}`);
      mask |= 1 << i;
    }
    c = { mask, startMs: wallMs(w.start), endMs: wallMs(w.end) };
    if (mask === 0 || !(c.startMs < c.endMs)) throw new RangeError('A window needs at least one day and start before end.');
    compiledCache.set(w, c);
  }
  return c;
}

// One formatter per zone: building one costs far more than using it.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

const HOUR_MS = 3_600_000;
const offsets = new Map<string, Map<number, number>>();

/**
 * The zone's offset from UTC at `t`, in ms. Offsets are kept per zone and UTC
 * hour when the hour starts and ends on the same offset (no zone changes twice
 * within an hour), so jobs due close together cost one Intl call an hour
 * between them. Bounded: a full map starts over.
 */
export function offsetAt(zone: string, t: number): number {
  let hours = offsets.get(zone);
  if (!hours) offsets.set(zone, (hours = new Map()));
  const hour = Math.floor(t / HOUR_MS);
  let off = hours.get(hour);
  if (off === undefined) {
    const first = intlOffset(zone, hour * HOUR_MS);
    off = intlOffset(zone, hour * HOUR_MS + HOUR_MS - 1000) === first ? first : NaN;
    if (hours.size >= 4096) hours.clear();
    hours.set(hour, off);
  }
  return Number.isNaN(off) ? intlOffset(zone, t) : off;
}

const fields = [0, 0, 0, 0, 0, 0]; // reused by every call: month, day, year, hour, minute, second

/**
 * The zone's offset at `t` as Intl tells it. Reads the six numbers of the
 * formatted string in place rather than through formatToParts, which builds an
 * array of objects on every call. en-US numeric order: month, day, year, hour,
 * minute, second.
 */
function intlOffset(zone: string, t: number): number {
  const s = formatter(zone).format(t);
  let n = 0;
  let k = 0;
  let inNumber = false;
  const f = fields;
  for (let i = 0; i < s.length && k < 6; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c >= 0 && c <= 9) {
      n = n * 10 + c;
      inNumber = true;
    } else if (inNumber) {
      f[k++] = n;
      n = 0;
      inNumber = false;
    }
  }
  if (inNumber && k < 6) f[k] = n;
  const local = Date.UTC(f[2]!, f[0]! - 1, f[1]!, f[3]! % 24, f[4]!, f[5]!);
  return local - Math.floor(t / 1000) * 1000;
}

/** Weekday (0 = Sunday) of a local day number (days since 1970-01-01, a Thursday). */
const weekday = (localDay: number) => (((localDay + 4) % 7) + 7) % 7;

function openAtLocal(c: Compiled, local: number): boolean {
  const day = Math.floor(local / DAY_MS);
  const ms = local - day * DAY_MS;
  return ms >= c.startMs && ms < c.endMs && (c.mask & (1 << weekday(day))) !== 0;
}

/** The earliest local wall time >= `local` inside the window, as if the offset never changed. */
function nextOpenLocal(c: Compiled, local: number): number {
  if (openAtLocal(c, local)) return local;
  const day = Math.floor(local / DAY_MS);
  const first = local - day * DAY_MS < c.startMs ? 0 : 1;
  for (let k = first; k <= first + 7; k++) {
    if (c.mask & (1 << weekday(day + k))) return (day + k) * DAY_MS + c.startMs;
  }
  throw new RangeError('A window needs at least one day.');
}

/** Whether a send may start at `t` (engine ms) in `zone`. */
export function isOpen(window: Window, zone: string, t: number): boolean {
  return openAtLocal(compile(window), t + offsetAt(zone, t));
}

/** The first second in (lo, hi] whose offset differs from `off`, given offsetAt(lo) = off and offsetAt(hi) != off. */
function transitionIn(zone: string, lo: number, hi: number, off: number): number {
  let a = Math.floor(lo / 1000);
  let b = Math.ceil(hi / 1000);
  if (offsetAt(zone, b * 1000) === off) return hi;
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2);
    if (offsetAt(zone, mid * 1000) === off) a = mid;
    else b = mid;
  }
  return Math.max(b * 1000, lo + 1);
}

// No zone goes a year without an opening of a non-empty weekly window; this only stops a runaway loop.
const MAX_STEPS = 200;

/**
 * The earliest engine-ms instant >= `t` at which a send may start: local wall
 * time in [start, end) on an allowed local day, in `zone`.
 */
export function nextOpen(window: Window, zone: string, t: number): number {
  const c = compile(window);
  let a = t;
  for (let step = 0; step < MAX_STEPS; step++) {
    const off = offsetAt(zone, a);
    const x = nextOpenLocal(c, a + off) - off;
    if (x === a) return a;
    // Assumes at most one transition between a and x (at most 8 days apart); zones change offset months apart.
    if (offsetAt(zone, x) === off) return x;
    a = transitionIn(zone, a, x, off);
  }
  throw new RangeError(`No opening of the window in ${zone} found after ${new Date(t).toISOString()}.`);
}
