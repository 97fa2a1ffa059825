import { describe, expect, it } from 'vitest';
import { ValidationError } from '@outbound/core/errors';
import { parseMultipart } from './multipart.ts';

const BOUNDARY = '----outbound-test-7MA4YWxkTrZu0gW';

/** Builds a body by hand, exactly as RFC 7578 frames it. */
function handBuilt(parts: { headers: string[]; data: Buffer | string }[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`, 'utf8'));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data, 'utf8'));
    chunks.push(Buffer.from('\r\n', 'utf8'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return Buffer.concat(chunks);
}

/** Real bytes and boundary, as a browser or fetch() would send them. */
async function viaFormData(form: FormData) {
  const response = new Response(form);
  const contentType = response.headers.get('content-type') ?? '';
  return { contentType, body: Buffer.from(await response.arrayBuffer()) };
}

function expectValidation(fn: () => unknown, message: string | RegExp) {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ValidationError);
  if (typeof message === 'string') expect((thrown as Error).message).toBe(message);
  else expect((thrown as Error).message).toMatch(message);
}

const csv = 'email,first name\r\nada@example.com,Ada\r\n';

describe('parseMultipart', () => {
  it('reads a hand-built body, as text and as base64', () => {
    const body = handBuilt([
      { headers: ['Content-Disposition: form-data; name="campaignId"'], data: 'c_01J0' },
      { headers: ['Content-Disposition: form-data; name="file"; filename="leads.csv"', 'Content-Type: text/csv'], data: csv },
    ]);
    const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    const expected = {
      fields: { campaignId: 'c_01J0' },
      files: { file: { filename: 'leads.csv', contentType: 'text/csv', data: Buffer.from(csv) } },
    };
    expect(parseMultipart({ headers, body: body.toString('utf8'), isBase64Encoded: false })).toEqual(expected);
    expect(parseMultipart({ headers, body: body.toString('base64'), isBase64Encoded: true })).toEqual(expected);
  });

  it('reads what FormData sends, with its own boundary', async () => {
    const form = new FormData();
    form.append('campaignId', 'c_01J0 ✓');
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'Léads 2024.csv');
    const { contentType, body } = await viaFormData(form);
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);

    const parsed = parseMultipart({ headers: { 'Content-Type': contentType }, body: body.toString('base64'), isBase64Encoded: true });
    expect(parsed.fields).toEqual({ campaignId: 'c_01J0 ✓' });
    expect(parsed.files.file?.filename).toBe('Léads 2024.csv');
    expect(parsed.files.file?.contentType).toBe('text/csv');
    expect(parsed.files.file?.data.toString('utf8')).toBe(csv);
  });

  it('passes a binary file through byte for byte, CRLFs and boundary-like text included', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0x0a, 0x0d, 0x0a, 0x80]),
      Buffer.from(`\r\n--${BOUNDARY.slice(0, -1)}\r\n`),
      Buffer.from('--\r\n\r\n--'),
      Buffer.from(`\n--${BOUNDARY}\n`),
      Buffer.from(`--${BOUNDARY}--`),
      Buffer.from([0x0d, 0x0a, 0x0d]),
    ]);
    const headers = { 'content-type': `multipart/form-data; boundary="${BOUNDARY}"` };
    const body = handBuilt([
      { headers: ['content-disposition: form-data; name="file"; filename="blob.bin"'], data: bytes },
      { headers: ['content-disposition: form-data; name="campaignId"'], data: 'c_1' },
    ]);
    const parsed = parseMultipart({ headers, body: body.toString('base64'), isBase64Encoded: true });
    expect(parsed.files.file?.data.equals(bytes)).toBe(true);
    expect(parsed.files.file?.contentType).toBe('application/octet-stream');
    expect(parsed.fields).toEqual({ campaignId: 'c_1' });

    // The same through FormData, whose boundary the file cannot know.
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'blob.bin');
    const real = await viaFormData(form);
    const again = parseMultipart({
      headers: { 'content-type': real.contentType },
      body: real.body.toString('base64'),
      isBase64Encoded: true,
    });
    expect(again.files.file?.data.equals(bytes)).toBe(true);
  });

  it('skips a preamble and an epilogue, and takes transport padding and a part without headers', () => {
    const body =
      `This is the preamble.\r\n--${BOUNDARY}  \r\n` +
      `Content-Disposition: form-data; name=note\r\n\r\nhello\r\n` +
      `--${BOUNDARY}\r\n\r\nno headers\r\n` +
      `--${BOUNDARY}--\r\nThis is the epilogue.`;
    expectValidation(
      () => parseMultipart({ headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body }),
      /every part needs a Content-Disposition/,
    );
    const ok = body.replace(`--${BOUNDARY}\r\n\r\nno headers\r\n`, '');
    expect(parseMultipart({ headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: ok })).toEqual({
      fields: { note: 'hello' },
      files: {},
    });
  });

  it('keeps the first of two parts with the same name, and an empty file as a file', () => {
    const body = handBuilt([
      { headers: ['Content-Disposition: form-data; name="campaignId"'], data: 'first' },
      { headers: ['Content-Disposition: form-data; name="campaignId"'], data: 'second' },
      { headers: ['Content-Disposition: form-data; name="file"; filename=""'], data: '' },
    ]);
    const parsed = parseMultipart({ headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: body.toString() });
    expect(parsed.fields).toEqual({ campaignId: 'first' });
    expect(parsed.files.file).toEqual({ filename: '', contentType: 'application/octet-stream', data: Buffer.alloc(0) });
  });

  it('decodes an RFC 8187 filename* and unescapes a quoted filename', () => {
    const body = handBuilt([
      { headers: [`Content-Disposition: form-data; name="a"; filename="plain.csv"; filename*=UTF-8''%C3%BCber%20uns.csv`], data: 'x' },
      { headers: ['Content-Disposition: form-data; name="b"; filename="say \\"hi\\"; ok.csv"'], data: 'y' },
      { headers: ['Content-Disposition: form-data; name="c"; filename="C:\\Users\\ada\\leads.csv"'], data: 'z' },
    ]);
    const parsed = parseMultipart({ headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: body.toString() });
    expect(parsed.files.a?.filename).toBe('über uns.csv');
    expect(parsed.files.b?.filename).toBe('say "hi"; ok.csv');
    expect(parsed.files.c?.filename).toBe('C:\\Users\\ada\\leads.csv');
  });

  it('reads a 10 MB file in one pass', () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'a,b\r\n-');
    const body = handBuilt([{ headers: ['Content-Disposition: form-data; name="file"; filename="big.csv"'], data: big }]);
    const started = performance.now();
    const parsed = parseMultipart({
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: body.toString('base64'),
      isBase64Encoded: true,
    });
    expect(parsed.files.file?.data.equals(big)).toBe(true);
    // A generous bound: a quadratic scan would take minutes, not seconds.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('parseMultipart refuses', () => {
  const body = handBuilt([{ headers: ['Content-Disposition: form-data; name="campaignId"'], data: 'c_1' }]).toString();
  const notMultipart = 'Send the CSV as multipart/form-data with the fields campaignId and file.';

  it.each([
    ['no content type', {}],
    ['JSON', { 'content-type': 'application/json' }],
    ['a urlencoded form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['multipart/mixed', { 'content-type': `multipart/mixed; boundary=${BOUNDARY}` }],
  ])('%s', (_, headers) => {
    expectValidation(() => parseMultipart({ headers, body }), notMultipart);
  });

  it.each([
    ['no boundary', 'multipart/form-data'],
    ['an empty boundary', 'multipart/form-data; boundary='],
    ['an empty quoted boundary', 'multipart/form-data; boundary=""'],
    ['a boundary over 70 characters', `multipart/form-data; boundary=${'x'.repeat(71)}`],
  ])('a content type with %s', (_, contentType) => {
    expectValidation(() => parseMultipart({ headers: { 'content-type': contentType }, body }), /has no valid boundary/);
  });

  it.each([
    ['an empty body', '', /boundary named in the content type never appears/],
    ['another boundary', body.replaceAll(BOUNDARY, 'other'), /never appears/],
    ['no closing boundary', body.replace(`--${BOUNDARY}--\r\n`, ''), /ends before the closing boundary/],
    ['text after a boundary', body.replace(`--${BOUNDARY}\r\n`, `--${BOUNDARY}junk\r\n`), /boundary line has text after it/],
    [
      'a part without a blank line after its headers',
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nvalue\r\n--${BOUNDARY}--`,
      /no blank line after its headers/,
    ],
    [
      'a header line without a colon',
      `--${BOUNDARY}\r\nContent-Disposition form-data\r\n\r\nvalue\r\n--${BOUNDARY}--`,
      /header line without a colon/,
    ],
    [
      'a part without a name',
      `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n--${BOUNDARY}--`,
      /every part needs a Content-Disposition: form-data header with a name/,
    ],
  ])('%s', (_, text, message) => {
    expectValidation(
      () => parseMultipart({ headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: text }),
      message,
    );
  });
});
