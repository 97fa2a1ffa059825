import { describe, expect, it } from 'vitest';
import { parse } from '../validate.ts';
import { ValidationError } from '../errors.ts';
import { Schedule, ScheduleOrNull, ianaZone } from './schedule.schema.ts';

const base = { timezone: 'America/New_York', start: '09:00', end: '17:00' };
const refusal = (input: unknown) => {
  try {
    parse(Schedule, input);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('Schedule', () => {
  it('fills the defaults: the lead zone first, Monday to Friday', () => {
    expect(parse(Schedule, base)).toEqual({ ...base, useLeadTimezone: true, days: ['mon', 'tue', 'wed', 'thu', 'fri'] });
  });

  it("keeps days in week order, once each, and the zone in Intl's spelling", () => {
    const s = parse(Schedule, { ...base, timezone: 'europe/berlin', days: ['sat', 'mon', 'sat'], useLeadTimezone: false, end: '24:00' });
    expect(s).toEqual({ timezone: 'Europe/Berlin', useLeadTimezone: false, days: ['mon', 'sat'], start: '09:00', end: '24:00' });
  });

  it('refuses with a sentence naming the field', () => {
    expect(refusal({ ...base, timezone: 'Mars/Olympus' })).toBe(
      'timezone: Mars/Olympus is not an IANA time zone name (such as America/New_York or Europe/Berlin).',
    );
    expect(refusal({ ...base, timezone: '+05:30' })).toMatch(/^timezone: /);
    expect(refusal({ ...base, timezone: 7 })).toMatch(/^timezone: must be an IANA time zone name/);
    expect(refusal({ start: '09:00', end: '17:00' })).toBe('timezone is required.');
    expect(refusal({ ...base, start: '9:00' })).toBe('start: must be a time HH:MM (24-hour), from 00:00 to 23:59.');
    expect(refusal({ ...base, start: '24:00' })).toMatch(/^start: must be a time HH:MM/);
    expect(refusal({ ...base, end: '17:60' })).toBe('end: must be a time HH:MM (24-hour), at most 24:00.');
    expect(refusal({ ...base, start: '17:00', end: '09:00' })).toBe(
      'end: must be later than start (17:00): a window cannot cross midnight.',
    );
    expect(refusal({ ...base, end: '09:00' })).toMatch(/^end: must be later than start/);
    expect(refusal({ ...base, days: [] })).toBe('days: must name at least one day (mon, tue, wed, thu, fri, sat or sun).');
    expect(refusal({ ...base, days: ['mon', 'Funday'] })).toBe('days.1: must each be one of mon, tue, wed, thu, fri, sat or sun.');
    expect(refusal({ ...base, days: 'mon' })).toMatch(/^days: must be a list of days/);
    expect(refusal({ ...base, useLeadTimezone: 'yes' })).toBe('useLeadTimezone: must be true or false.');
    expect(refusal({ ...base, weekends: true })).toBe('unknown field weekends.');
  });

  it('takes null, which removes a schedule', () => {
    expect(parse(ScheduleOrNull, null)).toBeNull();
    expect(() => parse(ScheduleOrNull, { ...base, start: 'noon' })).toThrow('start: must be a time HH:MM');
  });
});

describe('ianaZone', () => {
  it('knows zones and their aliases, and refuses offsets and nonsense', () => {
    expect(ianaZone('UTC')).toBe('UTC');
    expect(ianaZone('Pacific/Chatham')).toBe('Pacific/Chatham');
    expect(ianaZone('Asia/Calcutta')).not.toBeNull();
    for (const bad of ['', 'Berlin', 'GMT+25', '+01:00', '-0500', 'x'.repeat(65), null, 3]) expect(ianaZone(bad)).toBeNull();
  });
});
