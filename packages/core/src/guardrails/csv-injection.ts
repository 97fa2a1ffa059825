/**
 * Guardrail 6, CSV-injection defense (README, Guardrails): a cell value that starts with =, +, - or @ is neutralized on
 * ingest, before it is stored, on every ingest path (single create, CSV
 * import, webhook), because the three share one validation.
 *
 * A lead exported later and opened in a spreadsheet would otherwise run
 * `=HYPERLINK(...)` or a DDE payload as a formula. Following OWASP's
 * "CSV Injection" guidance, the value is kept and a single quote is put in
 * front of it: the text stays readable and a spreadsheet shows it as text.
 *
 * The check looks past leading whitespace and control characters, since
 * spreadsheets skip them and attackers hide the `=` behind a tab, CR or LF,
 * and it also catches the full-width forms (＝ ＋ － ＠), which some
 * spreadsheets fold into their ASCII twins.
 *
 * Trade-offs, chosen on purpose (defense wins):
 * - A phone number such as `+1 555 0100` or a negative number such as `-5`
 *   is stored as `'+1 555 0100` / `'-5`.
 * - The rule applies to every string field, the email included. A valid
 *   address never starts with `=` or `@`; `z.email()` does accept a local part
 *   starting with `+` or `-` (legal under RFC 5321, almost never seen), and
 *   such an address would be changed, so the lead's email schema is the place
 *   to refuse those.
 */

/** The quote put in front of a dangerous value. */
const PREFIX = "'";

/** First characters that make a spreadsheet read a cell as a formula. */
const TRIGGERS = ['=', '+', '-', '@', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'] as const;
const TRIGGER_SET: ReadonlySet<string> = new Set(TRIGGERS);

/**
 * What may sit in front of the trigger and still be skipped by a spreadsheet:
 * Unicode whitespace (tab, CR, LF, space, NBSP, ...), C0 and C1 control
 * characters, DEL, and zero-width format characters.
 */
const LEADING_NOISE = /^[\s\p{Cc}\u200B-\u200F\u2060]*/u;

/** The rule in words and data, for docs and for clients that want to show it. */
export const CSV_INJECTION_RULE = {
  triggers: TRIGGERS,
  skipsLeading: 'whitespace and control characters (tab, CR, LF, spaces, zero-width characters)',
  prefix: PREFIX,
  description:
    'A text value whose first character, after any leading whitespace or control characters, is =, +, - or @ ' +
    '(or the full-width ＝ ＋ － ＠) is stored with a single quote in front of the original value; ' +
    'every other value is stored unchanged.',
} as const;

/** True when a spreadsheet could read `value` as a formula. */
export function isDangerousCell(value: string): boolean {
  const rest = value.slice(LEADING_NOISE.exec(value)?.[0].length ?? 0);
  const first = rest[0];
  return first !== undefined && TRIGGER_SET.has(first);
}

/**
 * `value` with a `'` in front when it is dangerous, unchanged otherwise.
 * Idempotent: a neutralized value starts with `'`, which is safe.
 */
export function neutralizeCell(value: string): string {
  return isDangerousCell(value) ? PREFIX + value : value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of a lead's fields with every string value neutralized, including the
 * values of `customFields`, recursively through plain objects and arrays.
 * Keys are kept as they are; numbers, booleans, null and other objects are
 * returned untouched. The input is not modified.
 */
export function neutralizeLead<T>(fields: T): T {
  return neutralizeValue(fields) as T;
}

function neutralizeValue(value: unknown): unknown {
  if (typeof value === 'string') return neutralizeCell(value);
  if (Array.isArray(value)) return value.map(neutralizeValue);
  // Object.fromEntries defines own properties, so a "__proto__" key stays a plain key.
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, neutralizeValue(v)]));
  return value;
}
