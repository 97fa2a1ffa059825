import { describe, expect, it } from 'vitest';
import { CSV_INJECTION_RULE, isDangerousCell, neutralizeCell, neutralizeLead } from './csv-injection.ts';

describe('neutralizeCell', () => {
  it.each(['=', '+', '-', '@'])('prefixes a value starting with %s', (c) => {
    expect(neutralizeCell(`${c}SUM(A1:A9)`)).toBe(`'${c}SUM(A1:A9)`);
  });

  it.each(['\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'])('prefixes the full-width form %s', (c) => {
    expect(neutralizeCell(`${c}cmd|' /C calc'!A0`)).toBe(`'${c}cmd|' /C calc'!A0`);
  });

  it.each([
    ['a tab', '\t=1+1'],
    ['a CR', '\r=1+1'],
    ['a LF', '\n=1+1'],
    ['CRLF', '\r\n@SUM(1)'],
    ['spaces', '   -2+3'],
    ['a mix', ' \t\r\n +cmd'],
    ['a NUL', '\u0000=1'],
    ['a zero-width space', '\u200B=1'],
    ['a no-break space', '\u00A0=1'],
  ])('sees through %s in front of the trigger and keeps the original value', (_, value) => {
    expect(neutralizeCell(value)).toBe(`'${value}`);
  });

  it('prefixes a phone number: the documented trade-off', () => {
    expect(neutralizeCell('+1 555 0100')).toBe("'+1 555 0100");
    expect(neutralizeCell('-5')).toBe("'-5");
  });

  it.each(['42', 'Ada', 'Lovelace & Co', 'ada@example.com', 'a=b', 'x-y', '', '   ', "'=1+1", '3 + 4', '(555) 0100'])(
    'leaves the safe value %j unchanged',
    (value) => {
      expect(neutralizeCell(value)).toBe(value);
      expect(isDangerousCell(value)).toBe(false);
    },
  );

  it('is idempotent', () => {
    for (const value of ['=1', ' \t@x', '\uFF1Dx', 'safe', '+1 555', "'=already"]) {
      expect(neutralizeCell(neutralizeCell(value))).toBe(neutralizeCell(value));
    }
  });
});

describe('neutralizeLead', () => {
  it('neutralizes every string field, customFields and nested values included, and returns a copy', () => {
    const lead = {
      campaignId: 'c_1',
      email: 'ada@example.com',
      firstName: '=HYPERLINK("http://evil","x")',
      lastName: 'Lovelace',
      company: '\t@Acme',
      customFields: {
        phone: '+44 20 7946 0000',
        note: 'fine',
        score: 42,
        vip: true,
        nothing: null,
        nested: { deeper: '-1+1', list: ['=a', 'b', { x: '@c' }] },
      },
    };
    const before = structuredClone(lead);
    const out = neutralizeLead(lead);

    expect(out).toEqual({
      campaignId: 'c_1',
      email: 'ada@example.com',
      firstName: '\'=HYPERLINK("http://evil","x")',
      lastName: 'Lovelace',
      company: "'\t@Acme",
      customFields: {
        phone: "'+44 20 7946 0000",
        note: 'fine',
        score: 42,
        vip: true,
        nothing: null,
        nested: { deeper: "'-1+1", list: ["'=a", 'b', { x: "'@c" }] },
      },
    });
    expect(lead).toEqual(before);
    expect(out).not.toBe(lead);
    expect(out.customFields).not.toBe(lead.customFields);
  });

  it('is idempotent', () => {
    const lead = { firstName: '=1', customFields: { a: ['+2'], b: { c: '@3' } } };
    expect(neutralizeLead(neutralizeLead(lead))).toEqual(neutralizeLead(lead));
  });

  it('keeps a "__proto__" key a plain key', () => {
    const customFields = JSON.parse('{"__proto__": "=1", "ok": "x"}') as Record<string, string>;
    const out = neutralizeLead({ customFields });
    expect(Object.getPrototypeOf(out.customFields)).toBe(Object.prototype);
    expect(Object.entries(out.customFields)).toEqual([
      ['__proto__', "'=1"],
      ['ok', 'x'],
    ]);
  });
});

describe('CSV_INJECTION_RULE', () => {
  it('describes the same triggers the function uses', () => {
    for (const t of CSV_INJECTION_RULE.triggers) expect(neutralizeCell(`${t}x`)).toBe(`${CSV_INJECTION_RULE.prefix}${t}x`);
    expect(CSV_INJECTION_RULE.description).toMatch(/single quote/);
  });
});
