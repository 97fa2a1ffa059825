import * as z from 'zod';
import ct from 'countries-and-timezones';
import { DAYS, wallMs, type Day } from './window.ts';

// The spelling of each name, old and new, by its lower case. Intl would answer
// its own canonical form, which in Node's ICU is often the old one (Asia/Calcutta
// for Asia/Kolkata): a zone is kept as the user wrote it, with its proper case.
const spelling = new Map(Object.keys(ct.getAllTimezones({ deprecated: true })).map((name) => [name.toLowerCase(), name]));

/**
 * The IANA name of `zone` when Intl knows it, or null. Offsets such as
 * `+05:30` are refused even where Intl takes them: a fixed offset has no
 * daylight saving, which is what a zone name is for.
 */
export function ianaZone(zone: unknown): string | null {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64 || /^[+-]|^\d/.test(zone)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    return spelling.get(zone.toLowerCase()) ?? (resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone);
  } catch {
    return null;
  }
}

const WEEKDAYS: Day[] = ['mon', 'tue', 'wed', 'thu', 'fri'];
const DAY_LIST = 'mon, tue, wed, thu, fri, sat or sun';

const Zone = z.string({ error: 'must be an IANA time zone name such as America/New_York' }).transform((zone, ctx) => {
  const known = ianaZone(zone);
  if (known) return known;
  ctx.addIssue({
    code: 'custom',
    message: `${zone.slice(0, 64)} is not an IANA time zone name (such as America/New_York or Europe/Berlin)`,
  });
  return z.NEVER;
});

const wallTime = (allow24: boolean) =>
  z.string({ error: 'must be a time HH:MM (24-hour)' }).refine((s) => /^([01]\d|2[0-3]):[0-5]\d$/.test(s) || (allow24 && s === '24:00'), {
    error: allow24 ? 'must be a time HH:MM (24-hour), at most 24:00' : 'must be a time HH:MM (24-hour), from 00:00 to 23:59',
  });

export const Schedule = z
  .strictObject({
    timezone: Zone,
    useLeadTimezone: z.boolean({ error: 'must be true or false' }).default(true),
    days: z
      .array(z.enum(DAYS, { error: `must each be one of ${DAY_LIST}` }), { error: `must be a list of days (${DAY_LIST})` })
      .min(1, { error: `must name at least one day (${DAY_LIST})` })
      .max(7, { error: 'must name each day at most once' })
      .transform((days) => DAYS.filter((d) => days.includes(d)))
      .default(WEEKDAYS),
    start: wallTime(false),
    end: wallTime(true),
  })
  .superRefine((s, ctx) => {
    // Each time is checked on its own first; comparing a malformed one would only add a second, wrong sentence.
    if (/^\d\d:\d\d$/.test(s.start) && /^\d\d:\d\d$/.test(s.end) && wallMs(s.start) >= wallMs(s.end)) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: `must be later than start (${s.start}): a window cannot cross midnight` });
    }
  });
export type Schedule = z.output<typeof Schedule>;

/** What a campaign takes on create and PATCH: a schedule, or null to send at any hour. */
export const ScheduleOrNull = z.union([Schedule, z.null()]);
