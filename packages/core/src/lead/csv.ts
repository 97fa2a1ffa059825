import { Readable } from 'node:stream';
import { CsvError, parse, type Options } from 'csv-parse';
import { EngineError, ValidationError } from '../errors.ts';

/** Data rows per file (docs/leads-import.md: the header is not a row). */
export const MAX_CSV_ROWS = 50_000;
/** Bytes per file: 10 MB (docs/leads-import.md: 10,485,760 bytes). */
export const MAX_CSV_BYTES = 10_485_760;

/** Columns that go to customFields, per file (a lead holds at most 50 custom fields). */
export const MAX_CUSTOM_COLUMNS = 50;

export type CsvLeadFields = {
  email?: string;
  firstName?: string;
  lastName?: string;
  company?: string;
  customFields: Record<string, string>;
};

export type CsvRow = {
  /** 1-based physical line in the file where the row starts; the header is line 1 when nothing precedes it. */
  line: number;
  /** Raw cell text: not validated and not yet neutralized (the shared lead validation does both). */
  fields: CsvLeadFields;
};

export type ReadLeadCsvOptions = {
  /** Default 50,000. */
  maxRows?: number;
  /** Default 10,485,760. */
  maxBytes?: number;
};

type ParsedRow = { cells: string[]; line: number };

type StandardField = Exclude<keyof CsvLeadFields, 'customFields'>;

/**
 * Header names that fill the standard lead fields. A header matches when it
 * equals one of these after lower-casing and removing spaces, underscores and
 * hyphens, so "First Name", "first_name" and "FIRST-NAME" all match.
 */
export const HEADER_SYNONYMS: Readonly<Record<StandardField, readonly string[]>> = {
  email: ['email', 'e-mail', 'email address', 'mail'],
  firstName: ['first name', 'given name'],
  lastName: ['last name', 'surname', 'family name'],
  company: ['company', 'company name', 'organization', 'organisation', 'account'],
};

const headerKey = (header: string) => header.toLowerCase().replace(/[\s_-]+/g, '');

const FIELD_OF_HEADER: ReadonlyMap<string, StandardField> = new Map(
  (Object.entries(HEADER_SYNONYMS) as [StandardField, readonly string[]][]).flatMap(([field, names]) =>
    names.map((name) => [headerKey(name), field] as const),
  ),
);

/** Where each column's cells go; `undefined` drops the column (an empty header). */
type Column = { field: StandardField } | { custom: string } | undefined;

function planColumns(header: readonly string[]): Column[] {
  const columns = header.map((cell): Column => {
    const name = cell.trim();
    if (!name) return undefined;
    const field = FIELD_OF_HEADER.get(headerKey(name));
    return field ? { field } : { custom: name };
  });
  if (!columns.some((c) => c && 'field' in c && c.field === 'email')) throw noEmailColumn();
  // A lead holds at most 50 custom fields, and the import counts each field's presence for the whole file at once.
  const custom = new Set(columns.flatMap((c) => (c && 'custom' in c ? [c.custom] : [])));
  if (custom.size > MAX_CUSTOM_COLUMNS) {
    throw new ValidationError(
      `The CSV has ${custom.size} custom columns (besides email, first name, last name and company): at most ${MAX_CUSTOM_COLUMNS} are allowed.`,
    );
  }
  return columns;
}

function toFields(columns: readonly Column[], record: readonly string[]): CsvLeadFields {
  const standard: Partial<Record<StandardField, string>> = {};
  // A Map then Object.fromEntries: a "__proto__" header stays a plain key.
  const custom = new Map<string, string>();
  record.forEach((cell, i) => {
    const column = columns[i];
    const value = cell.trim();
    // Extra cells without a header are dropped; empty cells are absent, not ''.
    if (!column || !value) return;
    // Two columns with the same meaning: the first non-empty cell wins.
    if ('field' in column) standard[column.field] ??= value;
    else if (!custom.has(column.custom)) custom.set(column.custom, value);
  });
  return { ...standard, customFields: Object.fromEntries(custom) };
}

/**
 * Reads a lead CSV (UTF-8, with or without a BOM) row by row.
 *
 * - The first non-blank row is the header and must name an email column
 *   (see {@link HEADER_SYNONYMS}); any other non-empty header goes to
 *   `customFields` under its trimmed text. Otherwise: ValidationError.
 * - Blank lines are skipped; cells are trimmed; empty cells are left out.
 *   Short rows are fine; cells past the last header are dropped. A stray
 *   quote inside an unquoted cell (`5" screen`) is kept as text.
 * - `line` is the physical line where the row starts, counting the lines of
 *   quoted multi-line cells and skipped blank lines (CRLF, LF and CR each end a line).
 * - Malformed CSV (a quote never closed, text after a closing quote):
 *   ValidationError naming the line.
 * - More than `maxRows` data rows, or more than `maxBytes` bytes: EngineError
 *   TOO_LARGE (413).
 *
 * Validating before storing: this generator finds a problem only when it gets
 * there, so by the time it throws TOO_LARGE it has already yielded `maxRows`
 * rows. A caller that must store nothing from a bad file first calls
 * {@link countCsvRows} on the same buffer (it runs every check above), or
 * collects all rows before writing any. Values are returned raw: CSV-injection
 * neutralizing (guardrail 6) happens in the lead validation every ingest path shares.
 */
export async function* readLeadCsv(input: Buffer | AsyncIterable<Buffer | string>, opts: ReadLeadCsvOptions = {}): AsyncGenerator<CsvRow> {
  const maxRows = opts.maxRows ?? MAX_CSV_ROWS;
  const maxBytes = opts.maxBytes ?? MAX_CSV_BYTES;
  // The physical line where the next record's source text starts. Counted
  // from `raw` (each record's source, skipped blank lines and its line break
  // included) because csv-parse's own `info.lines` counts a CRLF inside a
  // quoted cell as two lines. Counted in on_record, while parsing, so an error
  // can name its line even when records parsed before it were never read.
  let parsedLine = 1;
  const options: Options<ParsedRow, { record: string[]; raw?: string }> = {
    bom: true,
    raw: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
    // With `raw`, csv-parse hands on_record `{ record, raw }`; what it returns is what is read below.
    on_record: ({ record, raw = '' }) => {
      const line = parsedLine + lineBreaks(leadingBlank(raw));
      parsedLine += lineBreaks(raw);
      return { cells: record, line };
    },
  };
  // The typed overload of parse() requires `columns`; this one is typed by hand.
  const parser = parse(options as unknown as Options);
  const source = Readable.from(limitBytes(input, maxBytes), { objectMode: false });
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);

  let columns: Column[] | undefined;
  let rows = 0;
  try {
    for await (const record of parser as AsyncIterable<ParsedRow>) {
      if (!columns) {
        columns = planColumns(record.cells);
        continue;
      }
      if (++rows > maxRows) throw tooManyRows(maxRows);
      yield { line: record.line, fields: toFields(columns, record.cells) };
    }
  } catch (err) {
    throw err instanceof CsvError ? malformed(err, parsedLine) : err;
  } finally {
    source.destroy();
    parser.destroy();
  }
  if (!columns) throw noEmailColumn();
}

/**
 * Runs every check of {@link readLeadCsv} over `buf` (size, header, syntax,
 * row count) and returns the number of data rows, so an import can refuse a
 * file before it stores a single lead. Parses the file once more; 10 MB at most.
 */
export async function countCsvRows(buf: Buffer, maxRows: number = MAX_CSV_ROWS): Promise<number> {
  let rows = 0;
  for await (const _row of readLeadCsv(buf, { maxRows })) rows++;
  return rows;
}

async function* limitBytes(input: Buffer | AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<Buffer> {
  if (Buffer.isBuffer(input)) {
    if (input.length > maxBytes) throw tooManyBytes(maxBytes);
    yield input;
    return;
  }
  let total = 0;
  for await (const chunk of input) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    total += buf.length;
    if (total > maxBytes) throw tooManyBytes(maxBytes);
    yield buf;
  }
}

/** Whitespace before a record's first character: blank lines csv-parse skipped. */
const leadingBlank = (raw: string) => /^\s*/.exec(raw)?.[0] ?? '';
const lineBreaks = (text: string) => text.match(/\r\n|\r|\n/g)?.length ?? 0;

function malformed(err: CsvError, nextLine: number): ValidationError {
  const raw = typeof err['raw'] === 'string' ? err['raw'] : '';
  // An unclosed quote runs to the end of the file: name the row where it opened.
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') {
    const line = nextLine + lineBreaks(leadingBlank(raw));
    return new ValidationError(`The CSV is malformed at line ${line}: a quote opened in that row is never closed.`, { line });
  }
  // Otherwise `raw` runs up to the character that failed.
  const line = nextLine + lineBreaks(raw);
  const reason =
    err.code === 'CSV_INVALID_CLOSING_QUOTE' || err.code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE'
      ? 'a closing quote is followed by other text (write a quote inside a quoted cell as "")'
      : 'the row could not be read';
  return new ValidationError(`The CSV is malformed at line ${line}: ${reason}.`, { line });
}

function noEmailColumn(): ValidationError {
  return new ValidationError('The CSV needs a header row with an email column.');
}

function tooManyRows(maxRows: number): EngineError {
  return new EngineError('TOO_LARGE', `The CSV has more than ${maxRows.toLocaleString('en-US')} rows: split it into smaller files.`);
}

function tooManyBytes(maxBytes: number): EngineError {
  const size = maxBytes % 1_048_576 === 0 ? `${maxBytes / 1_048_576} MB` : `${maxBytes.toLocaleString('en-US')} bytes`;
  return new EngineError('TOO_LARGE', `The CSV is larger than ${size}: split it into smaller files.`);
}
