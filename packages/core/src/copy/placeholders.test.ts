import { describe, expect, it } from 'vitest';
import { DEFAULT_FALLBACKS, STANDARD_FIELDS, fillPlaceholders, renderCopy } from './placeholders.ts';
import { SpintaxError } from './spintax.ts';

const lead = { firstName: ' Ada ', lastName: 'Lovelace', company: 'Analytical Engines', email: 'ada@example.test', senderName: 'Sam' };

describe('fillPlaceholders', () => {
  it('replaces each placeholder with its trimmed value, spaces in the braces allowed', () => {
    expect(fillPlaceholders('Hi {{firstName}} at {{ company }}, from {{senderName}}.', lead)).toEqual({
      text: 'Hi Ada at Analytical Engines, from Sam.',
      blank: [],
      unknown: [],
    });
  });

  it('uses the default fallbacks for a blank first name or company', () => {
    expect(DEFAULT_FALLBACKS).toEqual({ firstName: 'there', company: 'your team' });
    expect(fillPlaceholders('Hi {{firstName}}', { firstName: undefined })).toEqual({ text: 'Hi there', blank: [], unknown: [] });
    expect(fillPlaceholders('For {{company}}', { company: '   ' }).text).toBe('For your team');
  });

  it('renders a blank field without a fallback as empty and reports it once', () => {
    expect(fillPlaceholders('{{lastName}}|{{lastName}}|{{email}}', { lastName: '', email: undefined })).toEqual({
      text: '||',
      blank: ['lastName', 'email'],
      unknown: [],
    });
  });

  it('takes the caller’s fallbacks instead of the defaults, and none with {}', () => {
    expect(fillPlaceholders('Hi {{firstName}}', { firstName: '' }, { firstName: 'friend' }).text).toBe('Hi friend');
    expect(fillPlaceholders('Hi {{firstName}}', { firstName: '' }, {})).toEqual({ text: 'Hi ', blank: ['firstName'], unknown: [] });
    // An empty fallback is no fallback.
    expect(fillPlaceholders('{{company}}', { company: '' }, { company: '' }).blank).toEqual(['company']);
  });

  it('renders names missing from values as empty and reports them in order, once', () => {
    expect(fillPlaceholders('{{nope}} {{firstName}} {{customFields.plan}} {{nope}}', lead)).toEqual({
      text: ' Ada  ',
      blank: [],
      unknown: ['nope', 'customFields.plan'],
    });
  });

  it('looks dotted names up as whole keys', () => {
    expect(fillPlaceholders('Plan: {{customFields.plan}}', { 'customFields.plan': 'Pro' }).text).toBe('Plan: Pro');
  });

  it('does not find inherited properties such as constructor', () => {
    expect(fillPlaceholders('{{constructor}}{{toString}}', {})).toEqual({ text: '', blank: [], unknown: ['constructor', 'toString'] });
  });

  it('never re-scans inserted values', () => {
    expect(fillPlaceholders('{{company}}', { company: '{{email}}', email: 'x@y.test' }).text).toBe('{{email}}');
  });

  it('leaves malformed placeholders and single braces alone', () => {
    expect(fillPlaceholders('{{ }} {{first name}} {firstName}', lead).text).toBe('{{ }} {{first name}} {firstName}');
  });

  it('knows the standard fields', () => {
    expect(STANDARD_FIELDS).toEqual(['firstName', 'lastName', 'company', 'email', 'senderName']);
  });
});

describe('renderCopy', () => {
  it('spins and fills in one pass', () => {
    const values = { ...lead, firstName: '' };
    expect(renderCopy('{Hi|Hello} {{firstName}}, {a note|a question} for {{company}}', values, undefined, () => 0)).toEqual({
      text: 'Hi there, a note for Analytical Engines',
      blank: [],
      unknown: [],
    });
    expect(renderCopy('{Hi|Hello} {{firstName}}', lead, undefined, () => 0.99).text).toBe('Hello Ada');
  });

  it('keeps escaped braces literal rather than filling them', () => {
    expect(renderCopy('\\{\\{firstName\\}\\} is {{firstName}}', lead).text).toBe('{{firstName}} is Ada');
  });

  it('reports blank and unknown names only from the alternatives chosen', () => {
    expect(renderCopy('{{{lastName}}|{{nope}}}', { lastName: '' }, {}, () => 0)).toEqual({ text: '', blank: ['lastName'], unknown: [] });
  });

  it('throws a SpintaxError for invalid spintax', () => {
    expect(() => renderCopy('{Hi', lead)).toThrow(SpintaxError);
  });
});
