import { parseSpintax, spin } from './spintax.ts';

/** Lead and sender fields every campaign can use as `{{name}}`. */
export const STANDARD_FIELDS = ['firstName', 'lastName', 'company', 'email', 'senderName'] as const;

/**
 * Words used when a lead's field is blank, so "Hi {{firstName}}," reads
 * "Hi there," rather than "Hi ,". Only fields that sit naturally in a sentence
 * have one; a blank email or lastName renders empty and is reported.
 */
export const DEFAULT_FALLBACKS: Readonly<Record<string, string>> = Object.freeze({
  firstName: 'there',
  company: 'your team',
});

/** The outcome of filling placeholders. */
export interface Filled {
  text: string;
  /** Known names that rendered empty: blank value and no fallback. */
  blank: string[];
  /** Names absent from `values`; rendered empty. */
  unknown: string[];
}

// Same name rule as the spintax parser's PLACEHOLDER_NAME, spaces inside the braces allowed.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

/**
 * Replaces each `{{name}}` in plain (already spun) text.
 *
 * - A name in `values` with a non-blank value renders that value, trimmed.
 * - A blank or undefined value renders `fallbacks[name]` when there is one,
 *   otherwise '' and the name is listed in `blank` (an empty fallback counts as none).
 * - A name not in `values` at all renders '' and is listed in `unknown`.
 *
 * Dotted names (`customFields.plan`) are looked up as whole keys: the caller
 * flattens nested fields. Values are inserted as-is and never re-scanned, so a
 * lead whose company is "{{email}}" cannot pull in another field.
 *
 * @param fallbacks defaults to {@link DEFAULT_FALLBACKS}; pass `{}` for none.
 */
export function fillPlaceholders(
  text: string,
  values: Record<string, string | undefined>,
  fallbacks: Record<string, string> = DEFAULT_FALLBACKS,
): Filled {
  const resolve = resolver(values, fallbacks);
  const out = text.replace(PLACEHOLDER, (_match, name: string) => resolve.value(name));
  return { text: out, ...resolve.report() };
}

/**
 * Spins and fills in one pass: the send path's rendering of a template,
 * subject or step body. Unlike `fillPlaceholders(spin(text))`, braces written
 * with escapes (`\{\{name\}\}`) stay literal instead of becoming a placeholder.
 *
 * @param random returns a number in [0, 1); pass a seeded one for repeatable output.
 * @throws SpintaxError when `text` is not valid spintax.
 */
export function renderCopy(
  text: string,
  values: Record<string, string | undefined>,
  fallbacks: Record<string, string> = DEFAULT_FALLBACKS,
  random: () => number = Math.random,
): Filled {
  const resolve = resolver(values, fallbacks);
  const out = spin(parseSpintax(text), random, resolve.value);
  return { text: out, ...resolve.report() };
}

function resolver(values: Record<string, string | undefined>, fallbacks: Record<string, string>) {
  // Sets keep first-appearance order and report each name once.
  const blank = new Set<string>();
  const unknown = new Set<string>();
  return {
    value(name: string): string {
      // hasOwn, not `in`: "{{constructor}}" must not find Object.prototype.
      if (!Object.hasOwn(values, name)) {
        unknown.add(name);
        return '';
      }
      const value = values[name]?.trim();
      if (value) return value;
      const fallback = Object.hasOwn(fallbacks, name) ? fallbacks[name] : undefined;
      if (fallback) return fallback;
      blank.add(name);
      return '';
    },
    report: () => ({ blank: [...blank], unknown: [...unknown] }),
  };
}
