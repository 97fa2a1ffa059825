import ct from 'countries-and-timezones';
import countries from 'i18n-iso-countries/index.js';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import { ianaZone } from './schedule.schema.ts';
import { MAIN_ZONES, REGION_ZONES } from './regions.ts';

// English only: the package's Node entry would load all of its ~80 languages at start-up.
countries.registerLocale(en);

export type TimezoneSource = 'lead' | 'country' | 'campaign';
export interface LeadZone {
  timezone: string;
  timezoneSource: TimezoneSource;
}

/** A custom field by name, whatever the case of its key (CSV headers come as `Country` or `country`). */
function field(customFields: Record<string, unknown>, ...names: string[]): string | null {
  for (const [k, v] of Object.entries(customFields)) {
    if (typeof v === 'string' && v.trim() !== '' && names.includes(k.toLowerCase())) return v.trim();
  }
  return null;
}

/** ISO 3166 alpha-2 code from a code (alpha-2 or alpha-3) or an English name (`Germany`, `United States`, `UK`). */
export function countryCode(value: string): string | null {
  const v = value.trim();
  if (/^[A-Za-z]{2}$/.test(v) && ct.getCountry(v.toUpperCase())) return v.toUpperCase();
  if (/^[A-Za-z]{3}$/.test(v)) {
    const code = countries.alpha3ToAlpha2(v.toUpperCase());
    if (code) return code;
  }
  const code = countries.getAlpha2Code(v, 'en') ?? countries.getSimpleAlpha2Code(v, 'en');
  return code && ct.getCountry(code) ? code : null;
}

/**
 * The one zone a country keeps, or null when it has several. Zones that keep
 * the same time today (standard and summer offsets alike) count as one: Germany
 * is listed with Berlin and Büsingen's Zurich, Argentina with twelve zones all
 * at -03:00. The zone named for the country itself is the one given.
 */
const countryZones = new Map<string, string | null>();
function countryZone(code: string): string | null {
  if (countryZones.has(code)) return countryZones.get(code)!;
  const zones = (ct.getCountry(code)?.timezones ?? []).map((z) => ct.getTimezone(z)).filter((z) => z !== null);
  const times = new Set(zones.map((z) => `${z.utcOffset}/${z.dstOffset}`));
  const own = zones.find((z) => z.countries[0] === code) ?? zones[0];
  const zone = times.size === 1 && own ? ianaZone(own.name) : null;
  countryZones.set(code, zone);
  return zone;
}

// Names compared without accents, case, punctuation or the words that say what kind of region it is.
const KIND_WORDS = /\b(state|states|of|province|provincia|oblast|krai|kray|republic|autonomous|okrug|estado|do|de)\b/g;
const normalize = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(KIND_WORDS, ' ')
    .replace(/\s+/g, ' ')
    .trim();

let regionIndex: Map<string, Map<string, string>> | null = null;
/** Country code to (normalized region code or name to zone), built on first use. */
export function regionsOf(code: string): Map<string, string> | undefined {
  if (!regionIndex) {
    regionIndex = new Map();
    for (const [country, zones] of Object.entries(REGION_ZONES)) {
      const index = new Map<string, string>();
      for (const [zone, list] of Object.entries(zones)) {
        for (const entry of list.split(';')) {
          const [regionCode, ...rest] = entry.trim().split(' ');
          for (const key of [regionCode!.toLowerCase(), ...rest.join(' ').split(',').map(normalize)]) {
            // A name of one region that is the code or name of another in another zone would be a wrong answer, not a guess.
            if (!key || (index.has(key) && index.get(key) !== zone)) throw new Error(`regions.ts: ${country} ${key} names two zones.`);
            index.set(key, zone);
          }
        }
      }
      regionIndex.set(country, index);
    }
  }
  return regionIndex.get(code);
}

function regionZone(code: string, region: string): string | null {
  const index = regionsOf(code);
  if (!index) return null;
  // `US-NY`: the ISO 3166-2 form, country first.
  const iso = /^([A-Za-z]{2})-([A-Za-z0-9]{1,3})$/.exec(region.trim());
  const key = iso && iso[1]!.toUpperCase() === code ? iso[2]!.toLowerCase() : normalize(region);
  // Codes are kept as they are (Delaware's DE is also a word the names drop), names normalized.
  const zone = index.get(region.trim().toLowerCase()) ?? index.get(key);
  return zone ? ianaZone(zone) : null;
}

/**
 * A lead's zone for a schedule: its own `timezone` field when that is an IANA
 * zone; else its country's, when the country keeps one time or its `region`
 * (or `state`) names a region of it, or the country's main zone when most of
 * its people keep one (MAIN_ZONES); else the campaign's.
 */
export function leadZone(
  customFields: Record<string, unknown> | null | undefined,
  schedule: { timezone: string; useLeadTimezone?: boolean },
): LeadZone {
  const campaign: LeadZone = { timezone: schedule.timezone, timezoneSource: 'campaign' };
  if (schedule.useLeadTimezone === false || !customFields) return campaign;
  const own = field(customFields, 'timezone');
  const ownZone = own ? ianaZone(own) : null;
  if (ownZone) return { timezone: ownZone, timezoneSource: 'lead' };
  const country = field(customFields, 'country');
  const code = country ? countryCode(country) : null;
  if (!code) return campaign;
  const single = countryZone(code);
  if (single) return { timezone: single, timezoneSource: 'country' };
  const region = field(customFields, 'region') ?? field(customFields, 'state');
  const zone = (region ? regionZone(code, region) : null) ?? (MAIN_ZONES[code] ? ianaZone(MAIN_ZONES[code]) : null);
  return zone ? { timezone: zone, timezoneSource: 'country' } : campaign;
}
