/**
 * Guardrail 5: the AI disclosure marker, only on a genuinely AI-generated
 * send to a recipient with an EU-region signal (docs/copy.md: customFields
 * country in the EU/EEA, region EU, or an EU/EEA country-code or .eu address).
 */
export const AI_DISCLOSURE = 'This message was written with the help of AI.';

// EU member states and the other EEA countries (Iceland, Liechtenstein, Norway): ISO 3166 alpha-2.
const EEA_CODES = new Set([
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'EL',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
  'IS',
  'LI',
  'NO',
]);
const EEA_NAMES = new Set([
  'austria',
  'belgium',
  'bulgaria',
  'croatia',
  'cyprus',
  'czechia',
  'czech republic',
  'denmark',
  'estonia',
  'finland',
  'france',
  'germany',
  'greece',
  'hungary',
  'ireland',
  'italy',
  'latvia',
  'lithuania',
  'luxembourg',
  'malta',
  'netherlands',
  'the netherlands',
  'holland',
  'poland',
  'portugal',
  'romania',
  'slovakia',
  'slovenia',
  'spain',
  'sweden',
  'iceland',
  'liechtenstein',
  'norway',
]);
// Country-code TLDs of the same countries (Greece is .gr), and .eu.
const EEA_TLDS = new Set([
  'at',
  'be',
  'bg',
  'hr',
  'cy',
  'cz',
  'dk',
  'ee',
  'fi',
  'fr',
  'de',
  'gr',
  'hu',
  'ie',
  'it',
  'lv',
  'lt',
  'lu',
  'mt',
  'nl',
  'pl',
  'pt',
  'ro',
  'sk',
  'si',
  'es',
  'se',
  'is',
  'li',
  'no',
  'eu',
]);

/** A custom field as text: a number or a flag names no country or region. */
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function isEuRecipient(lead: { email: string; customFields?: Record<string, unknown> }): boolean {
  const custom = lead.customFields ?? {};
  const country = text(custom.country).trim().replace(/^'/, '');
  if (country && (EEA_CODES.has(country.toUpperCase()) || EEA_NAMES.has(country.toLowerCase()))) return true;
  if (text(custom.region).trim().toUpperCase() === 'EU') return true;
  const tld = lead.email.split('@')[1]?.split('.').pop()?.toLowerCase() ?? '';
  return EEA_TLDS.has(tld);
}
