import { describe, expect, it } from 'vitest';
import { EngineError, ValidationError } from '../errors.ts';
import { countCsvRows, MAX_CSV_BYTES, readLeadCsv, type CsvRow } from './csv.ts';

async function rowsOf(input: Parameters<typeof readLeadCsv>[0], opts?: Parameters<typeof readLeadCsv>[1]) {
  const rows: CsvRow[] = [];
  for await (const row of readLeadCsv(input, opts)) rows.push(row);
  return rows;
}

const csv = (text: string) => Buffer.from(text, 'utf8');

async function errorOf(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof EngineError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('readLeadCsv: headers', () => {
  it('matches the standard fields case-insensitively and by their synonyms', async () => {
    const headers = [
      ['Email', 'First Name', 'Last Name', 'Company'],
      ['E-mail', 'first_name', 'last_name', 'company name'],
      ['EMAIL ADDRESS', 'FirstName', 'Surname', 'Organization'],
      ['email_address', 'given name', 'family name', 'Organisation'],
      ['Mail', 'first-name', 'LASTNAME', 'Account'],
      [' emailAddress ', 'FIRST NAME', 'last-name', 'COMPANY_NAME'],
    ];
    for (const header of headers) {
      const rows = await rowsOf(csv(`${header.join(',')}\nada@example.com,Ada,Lovelace,Analytical Engines\n`));
      expect(rows, header.join(',')).toEqual([
        {
          line: 2,
          fields: {
            email: 'ada@example.com',
            firstName: 'Ada',
            lastName: 'Lovelace',
            company: 'Analytical Engines',
            customFields: {},
          },
        },
      ]);
    }
  });

  it('keeps every other column in customFields under its original (trimmed) header', async () => {
    const rows = await rowsOf(
      csv('email,  Job Title ,LinkedIn URL,phone_number,,\nada@example.com,Countess,https://x.test/ada,+44 20,ignored,dropped\n'),
    );
    expect(rows[0]?.fields).toEqual({
      email: 'ada@example.com',
      customFields: { 'Job Title': 'Countess', 'LinkedIn URL': 'https://x.test/ada', phone_number: '+44 20' },
    });
  });

  it('returns values raw: CSV-injection neutralizing belongs to the shared lead validation', async () => {
    const rows = await rowsOf(csv('email,note\nada@example.com,=1+1\n'));
    expect(rows[0]?.fields.customFields).toEqual({ note: '=1+1' });
  });

  it('keeps a "__proto__" header as a plain key', async () => {
    const rows = await rowsOf(csv('email,__proto__\nada@example.com,x\n'));
    const custom = rows[0]?.fields.customFields ?? {};
    expect(Object.getPrototypeOf(custom)).toBe(Object.prototype);
    expect(Object.entries(custom)).toEqual([['__proto__', 'x']]);
  });

  it('lets the first non-empty cell win when two columns mean the same field', async () => {
    const rows = await rowsOf(csv('email,e-mail,note,note\n,ada@example.com,first,second\nbob@example.com,other@example.com,,second\n'));
    expect(rows.map((r) => r.fields)).toEqual([
      { email: 'ada@example.com', customFields: { note: 'first' } },
      { email: 'bob@example.com', customFields: { note: 'second' } },
    ]);
  });

  it.each([
    ['an empty file', ''],
    ['blank lines only', '\n\n  \n'],
    ['no email column', 'name,company\nAda,Engines\n'],
    ['a data row where the header should be', 'ada@example.com,Ada\n'],
  ])('refuses %s', async (_, text) => {
    const err = await errorOf(rowsOf(csv(text)));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe('The CSV needs a header row with an email column.');
  });
});

describe('readLeadCsv: cells and lines', () => {
  it('strips a UTF-8 BOM', async () => {
    const rows = await rowsOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), csv('Email,First Name\nada@example.com,Ada\n')]));
    expect(rows).toEqual([{ line: 2, fields: { email: 'ada@example.com', firstName: 'Ada', customFields: {} } }]);
  });

  it('trims cells, leaves empty cells out, takes short rows and drops cells past the header', async () => {
    const rows = await rowsOf(
      csv('email,firstName,lastName,city\n  ada@example.com ,  , Lovelace\nbob@example.com,Bob,,London,extra,more\n'),
    );
    expect(rows.map((r) => r.fields)).toEqual([
      { email: 'ada@example.com', lastName: 'Lovelace', customFields: {} },
      { email: 'bob@example.com', firstName: 'Bob', customFields: { city: 'London' } },
    ]);
  });

  it('reads quoted commas, quotes and multi-line cells, and counts physical lines (LF)', async () => {
    const text = [
      'email,company,note', // 1
      'a@example.com,"Acme, Inc.","said ""hi"""', // 2
      'b@example.com,Beta,"line one', // 3
      'line two', // 4
      'line three"', // 5
      'c@example.com,"Gamma', // 6
      'Corp",x', // 7
      'd@example.com,Delta,Joe "Best" Pizza', // 8
    ].join('\n');
    const rows = await rowsOf(csv(text));
    expect(rows.map((r) => [r.line, r.fields])).toEqual([
      [2, { email: 'a@example.com', company: 'Acme, Inc.', customFields: { note: 'said "hi"' } }],
      [3, { email: 'b@example.com', company: 'Beta', customFields: { note: 'line one\nline two\nline three' } }],
      [6, { email: 'c@example.com', company: 'Gamma\nCorp', customFields: { note: 'x' } }],
      [8, { email: 'd@example.com', company: 'Delta', customFields: { note: 'Joe "Best" Pizza' } }],
    ]);
  });

  it('counts CRLF line breaks inside quoted cells once', async () => {
    const text = 'email,note\r\na@example.com,"one\r\ntwo\r\nthree"\r\n\r\nb@example.com,x\r\n';
    const rows = await rowsOf(csv(text));
    expect(rows.map((r) => r.line)).toEqual([2, 6]);
    expect(rows[0]?.fields.customFields).toEqual({ note: 'one\r\ntwo\r\nthree' });
  });

  it('skips blank and whitespace-only lines, still counting them', async () => {
    const text = '\n\nemail\n\n  \na@example.com\n\t\n\nb@example.com\n\n';
    const rows = await rowsOf(csv(text));
    expect(rows.map((r) => [r.line, r.fields.email])).toEqual([
      [6, 'a@example.com'],
      [9, 'b@example.com'],
    ]);
  });

  it('reads a stream of small Buffer and string chunks the same as one Buffer', async () => {
    const text = '\uFEFFemail,Company\r\n\r\na@example.com,"Ünïcode\r\nGmbH"\r\nb@example.com,Beta\r\n';
    async function* pieces() {
      const bytes = Buffer.from(text, 'utf8');
      for (let i = 0; i < bytes.length; i += 3) yield bytes.subarray(i, i + 3);
    }
    async function* strings() {
      for (const ch of text) yield ch;
    }
    async function* mixed() {
      let i = 0;
      for (const ch of text) yield i++ % 2 ? ch : Buffer.from(ch, 'utf8');
    }
    const whole = await rowsOf(csv(text));
    expect(whole.map((r) => r.line)).toEqual([3, 5]);
    expect(whole[0]?.fields.company).toBe('Ünïcode\r\nGmbH');
    expect(await rowsOf(pieces())).toEqual(whole);
    expect(await rowsOf(strings())).toEqual(whole);
    expect(await rowsOf(mixed())).toEqual(whole);
  });
});

describe('readLeadCsv: malformed files', () => {
  it('names the line where a never-closed quote opens', async () => {
    const text = 'email,note\na@example.com,fine\n\nb@example.com,"never closed\nc@example.com,x\n';
    const err = await errorOf(rowsOf(csv(text)));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe('The CSV is malformed at line 4: a quote opened in that row is never closed.');
    expect(err.extra).toEqual({ line: 4 });
  });

  it('names the line of text after a closing quote, past a multi-line cell', async () => {
    const text = 'email,note\r\na@example.com,"two\r\nlines"\r\nb@example.com,"bad"x\r\n';
    const err = await errorOf(rowsOf(csv(text)));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/^The CSV is malformed at line 4: a closing quote is followed by other text/);
  });
});

describe('limits', () => {
  const file = (rows: number) => 'email\n' + Array.from({ length: rows }, (_, i) => `lead${i}@example.com`).join('\n') + '\n';

  it('reads exactly maxRows rows', async () => {
    expect(await rowsOf(csv(file(3)), { maxRows: 3 })).toHaveLength(3);
    expect(await countCsvRows(csv(file(3)), 3)).toBe(3);
  });

  it('refuses more than maxRows rows with TOO_LARGE, and countCsvRows says so before anything is read for storing', async () => {
    const err = await errorOf(rowsOf(csv(file(4)), { maxRows: 3 }));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toBe('The CSV has more than 3 rows: split it into smaller files.');
    expect((await errorOf(countCsvRows(csv(file(4)), 3))).code).toBe('TOO_LARGE');
  });

  it('does not count the header or blank lines as rows', async () => {
    expect(await countCsvRows(csv('email\n\n\na@example.com\n\nb@example.com\n\n\n'), 2)).toBe(2);
  });

  it('allows 50,000 rows by default and refuses 50,001', async () => {
    const big = csv(file(50_001));
    const err = await errorOf(countCsvRows(big));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toBe('The CSV has more than 50,000 rows: split it into smaller files.');
    expect(await countCsvRows(csv(file(50_000)))).toBe(50_000);
  });

  it('refuses a file over 10 MB, whole or streamed', async () => {
    const big = Buffer.alloc(MAX_CSV_BYTES + 1, 'a');
    big.write('email\n');
    const whole = await errorOf(countCsvRows(big));
    expect(whole.code).toBe('TOO_LARGE');
    expect(whole.message).toBe('The CSV is larger than 10 MB: split it into smaller files.');
    async function* stream() {
      for (let i = 0; i < big.length; i += 1 << 20) yield big.subarray(i, i + (1 << 20));
    }
    expect((await errorOf(rowsOf(stream()))).code).toBe('TOO_LARGE');
  });

  it('stops reading when the caller stops early', async () => {
    const seen: number[] = [];
    for await (const row of readLeadCsv(csv(file(10)))) {
      seen.push(row.line);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([2, 3]);
  });
});
