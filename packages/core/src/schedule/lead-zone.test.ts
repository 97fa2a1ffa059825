import { describe, expect, it } from 'vitest';
import ct from 'countries-and-timezones';
import { countryCode, leadZone, regionsOf } from './lead-zone.ts';
import { REGION_ZONES } from './regions.ts';
import { ianaZone } from './schedule.schema.ts';

const schedule = { timezone: 'Europe/London', useLeadTimezone: true };
const zoneOf = (customFields: Record<string, unknown>, s: { timezone: string; useLeadTimezone?: boolean } = schedule) =>
  leadZone(customFields, s);

describe('leadZone', () => {
  it("takes the lead's own timezone first, in Intl's spelling", () => {
    expect(zoneOf({ timezone: 'asia/kolkata', country: 'US', state: 'TX' })).toEqual({ timezone: 'Asia/Kolkata', timezoneSource: 'lead' });
    expect(zoneOf({ Timezone: 'Asia/Kathmandu' })).toEqual({ timezone: 'Asia/Kathmandu', timezoneSource: 'lead' });
  });

  it('passes over a timezone that is not an IANA zone, to the country', () => {
    expect(zoneOf({ timezone: 'Berlin time', country: 'Germany' })).toEqual({ timezone: 'Europe/Berlin', timezoneSource: 'country' });
    expect(zoneOf({ timezone: '+05:30', country: 'IN' })).toEqual({ timezone: 'Asia/Kolkata', timezoneSource: 'country' });
  });

  it('takes a country of one zone by code, alpha-3 code or English name', () => {
    expect(zoneOf({ country: 'de' })).toEqual({ timezone: 'Europe/Berlin', timezoneSource: 'country' });
    expect(zoneOf({ Country: 'NPL' })).toEqual({ timezone: 'Asia/Kathmandu', timezoneSource: 'country' });
    expect(zoneOf({ country: 'United Kingdom' }, { timezone: 'America/New_York' })).toEqual({
      timezone: 'Europe/London',
      timezoneSource: 'country',
    });
    expect(zoneOf({ country: 'UK' }, { timezone: 'America/New_York' }).timezone).toBe('Europe/London');
    expect(zoneOf({ country: 'Argentina' }).timezone).toBe('America/Argentina/Buenos_Aires');
  });

  it('needs the region for a country of several zones', () => {
    expect(zoneOf({ country: 'US' })).toEqual({ timezone: 'Europe/London', timezoneSource: 'campaign' });
    expect(zoneOf({ country: 'United States', state: 'Texas' })).toEqual({ timezone: 'America/Chicago', timezoneSource: 'country' });
    expect(zoneOf({ country: 'USA', region: 'US-CA' }).timezone).toBe('America/Los_Angeles');
    expect(zoneOf({ country: 'US', state: 'DE' }).timezone).toBe('America/New_York');
    expect(zoneOf({ country: 'US', state: 'Washington' }).timezone).toBe('America/Los_Angeles');
    expect(zoneOf({ country: 'US', state: 'Washington, D.C.' }).timezone).toBe('America/New_York');
    expect(zoneOf({ country: 'Canada', region: 'Newfoundland' }).timezone).toBe('America/St_Johns');
    expect(zoneOf({ country: 'AU', state: 'Western Australia' }).timezone).toBe('Australia/Perth');
    expect(zoneOf({ country: 'Brazil', state: 'Sao Paulo' }).timezone).toBe('America/Sao_Paulo');
    expect(zoneOf({ country: 'BR', state: 'Amazonas' }).timezone).toBe('America/Manaus');
    expect(zoneOf({ country: 'Russia', region: 'Sverdlovsk Oblast' }).timezone).toBe('Asia/Yekaterinburg');
    expect(zoneOf({ country: 'RU', region: 'Moscow' }).timezone).toBe('Europe/Moscow');
    expect(zoneOf({ country: 'Mexico', state: 'Estado de México' }).timezone).toBe('America/Mexico_City');
    expect(zoneOf({ country: 'MX', state: 'Quintana Roo' }).timezone).toBe('America/Cancun');
    expect(zoneOf({ country: 'Indonesia', region: 'Bali' }).timezone).toBe('Asia/Makassar');
    expect(zoneOf({ country: 'ID', region: 'Papua' }).timezone).toBe('Asia/Jayapura');
    expect(zoneOf({ country: 'MX', state: 'Chihuahua' }).timezone).toBe('America/Chihuahua');
    expect(zoneOf({ country: 'MX', region: 'Ciudad Juárez' }).timezone).toBe('America/Ciudad_Juarez');
    expect(zoneOf({ country: 'United States', region: 'Puerto Rico' }).timezone).toBe('America/Puerto_Rico');
    expect(zoneOf({ country: 'US', state: 'GU' }).timezone).toBe('Pacific/Guam');
  });

  it('gives a country of several zones its main one when most of its people keep it, and its other regions their own', () => {
    expect(zoneOf({ country: 'CN' })).toEqual({ timezone: 'Asia/Shanghai', timezoneSource: 'country' });
    expect(zoneOf({ country: 'China', region: 'Xinjiang' }).timezone).toBe('Asia/Shanghai');
    expect(zoneOf({ country: 'ES' }).timezone).toBe('Europe/Madrid');
    expect(zoneOf({ country: 'Spain', region: 'Canary Islands' }).timezone).toBe('Atlantic/Canary');
    expect(zoneOf({ country: 'ES', region: 'ES-TF' }).timezone).toBe('Atlantic/Canary');
    expect(zoneOf({ country: 'PT' }).timezone).toBe('Europe/Lisbon');
    expect(zoneOf({ country: 'Portugal', region: 'Açores' }).timezone).toBe('Atlantic/Azores');
    expect(zoneOf({ country: 'NZ' }).timezone).toBe('Pacific/Auckland');
    expect(zoneOf({ country: 'New Zealand', region: 'Chatham Islands' }).timezone).toBe('Pacific/Chatham');
    expect(zoneOf({ country: 'Chile' }).timezone).toBe('America/Santiago');
    expect(zoneOf({ country: 'CL', region: 'Magallanes' }).timezone).toBe('America/Punta_Arenas');
    expect(zoneOf({ country: 'EC', region: 'Galápagos' }).timezone).toBe('Pacific/Galapagos');
    // Spread over their zones: still the region, else the campaign's.
    for (const country of ['US', 'CA', 'AU', 'BR', 'RU', 'MX', 'ID']) expect(zoneOf({ country }).timezoneSource, country).toBe('campaign');
  });

  it("falls back to the campaign's zone for an unknown country or region, or no fields", () => {
    expect(zoneOf({ country: 'Atlantis' })).toEqual({ timezone: 'Europe/London', timezoneSource: 'campaign' });
    expect(zoneOf({ country: 'US', state: 'Gondor' }).timezoneSource).toBe('campaign');
    // A region code of another country is no answer: NSW is Australian.
    expect(zoneOf({ country: 'US', state: 'AU-NSW' }).timezoneSource).toBe('campaign');
    expect(zoneOf({})).toEqual({ timezone: 'Europe/London', timezoneSource: 'campaign' });
    expect(leadZone(undefined, schedule).timezoneSource).toBe('campaign');
    expect(zoneOf({ country: 42, timezone: '' })).toEqual({ timezone: 'Europe/London', timezoneSource: 'campaign' });
  });

  it('gives the campaign zone to every lead when useLeadTimezone is false', () => {
    expect(zoneOf({ timezone: 'Asia/Tokyo', country: 'JP' }, { timezone: 'Europe/London', useLeadTimezone: false })).toEqual({
      timezone: 'Europe/London',
      timezoneSource: 'campaign',
    });
  });
});

describe('countryCode', () => {
  it('reads codes and English names, and refuses what is neither', () => {
    expect(countryCode('gb')).toBe('GB');
    expect(countryCode('DEU')).toBe('DE');
    expect(countryCode('Côte d’Ivoire') ?? countryCode("Cote d'Ivoire")).toBe('CI');
    expect(countryCode('South Korea')).toBe('KR');
    expect(countryCode('XX')).toBeNull();
    expect(countryCode('Narnia')).toBeNull();
  });
});

describe('the region table', () => {
  it('covers every state, province or subject of the listed countries', () => {
    const counts = Object.fromEntries(
      Object.entries(REGION_ZONES).map(([c, zones]) => [c, Object.values(zones).flatMap((l) => l.split(';')).length]),
    );
    // 50 states and DC; 10 provinces and 3 territories; 6 states and 2 territories; 26 states and the Federal District;
    // 31 states and Mexico City; 38 provinces; 83 federal subjects. The US also lists its five inhabited territories and Mexico
    // the border city of Ciudad Juárez; countries with a main zone list only the regions that keep another time.
    expect(counts).toEqual({ US: 56, CA: 13, AU: 8, BR: 27, MX: 33, ID: 38, RU: 83, ES: 3, PT: 2, NZ: 1, CL: 2, EC: 1 });
  });

  it('names only zones Intl knows, each one that countries-and-timezones gives the country, and no key twice', () => {
    for (const [country, zones] of Object.entries(REGION_ZONES)) {
      // A US territory has a country code (and a zone) of its own.
      const known = [
        ...ct.getCountry(country)!.timezones,
        ...(country === 'US' ? ['PR', 'VI', 'GU', 'MP', 'AS'].flatMap((t) => ct.getCountry(t)!.timezones) : []),
      ];
      for (const zone of Object.keys(zones)) {
        expect(ianaZone(zone), zone).toBe(zone);
        expect(known, `${country} ${zone}`).toContain(zone);
      }
      // Building the index throws when a code or name points at two zones.
      expect(regionsOf(country)!.size).toBeGreaterThan(Object.keys(zones).length);
    }
  });
});
