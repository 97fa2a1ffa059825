import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { MAX_SPINTAX_DEPTH, MAX_SPINTAX_LENGTH, SpintaxError, parseSpintax, placeholdersIn, spin, validateSpintax } from './spintax.ts';

/** mulberry32: a small seeded generator so spin tests repeat exactly. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function errorOf(text: string): SpintaxError {
  try {
    parseSpintax(text);
  } catch (err) {
    if (err instanceof SpintaxError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

// "{a|{a|x}}": braces alone would make the innermost pair a {{placeholder}}.
const nested = (depth: number): string => '{a|'.repeat(depth) + 'x' + '}'.repeat(depth);

describe('parseSpintax', () => {
  it('returns plain text as one text node, and nothing for empty text', () => {
    expect(parseSpintax('Hello there')).toEqual([{ type: 'text', value: 'Hello there' }]);
    expect(parseSpintax('')).toEqual([]);
  });

  it('parses alternatives and nested choices', () => {
    expect(parseSpintax('{Hi|Hello {there|friend}}!')).toEqual([
      {
        type: 'choice',
        options: [
          [{ type: 'text', value: 'Hi' }],
          [
            { type: 'text', value: 'Hello ' },
            { type: 'choice', options: [[{ type: 'text', value: 'there' }], [{ type: 'text', value: 'friend' }]] },
          ],
        ],
      },
      { type: 'text', value: '!' },
    ]);
  });

  it('allows empty alternatives', () => {
    expect(parseSpintax('a{|, }b')).toEqual([
      { type: 'text', value: 'a' },
      { type: 'choice', options: [[], [{ type: 'text', value: ', ' }]] },
      { type: 'text', value: 'b' },
    ]);
    expect(parseSpintax('{}')).toEqual([{ type: 'choice', options: [[]] }]);
  });

  it('turns escapes into literal characters and keeps other backslashes', () => {
    expect(parseSpintax('\\{a\\|b\\} \\\\ C:\\path\\')).toEqual([{ type: 'text', value: '{a|b} \\ C:\\path\\' }]);
    expect(spin('{\\}|\\}}')).toBe('}');
  });

  it('treats a bar outside braces as text', () => {
    expect(parseSpintax('a | b')).toEqual([{ type: 'text', value: 'a | b' }]);
  });

  it('reads {{name}} as a placeholder, with spaces and dots, inside choices too', () => {
    expect(parseSpintax('Hi {{firstName}}, {{ company }} {{customFields.plan}}')).toEqual([
      { type: 'text', value: 'Hi ' },
      { type: 'placeholder', name: 'firstName' },
      { type: 'text', value: ', ' },
      { type: 'placeholder', name: 'company' },
      { type: 'text', value: ' ' },
      { type: 'placeholder', name: 'customFields.plan' },
    ]);
    expect(parseSpintax('{Hi {{firstName}}|Hello}')).toEqual([
      {
        type: 'choice',
        options: [
          [
            { type: 'text', value: 'Hi ' },
            { type: 'placeholder', name: 'firstName' },
          ],
          [{ type: 'text', value: 'Hello' }],
        ],
      },
    ]);
  });

  it('reads {{ followed by spintax as two nested choices', () => {
    expect(parseSpintax('{{Hi|Hello} there|Hey}')).toEqual([
      {
        type: 'choice',
        options: [
          [
            { type: 'choice', options: [[{ type: 'text', value: 'Hi' }], [{ type: 'text', value: 'Hello' }]] },
            { type: 'text', value: ' there' },
          ],
          [{ type: 'text', value: 'Hey' }],
        ],
      },
    ]);
    expect(parseSpintax('{{{firstName}}|you}')[0]).toEqual({
      type: 'choice',
      options: [[{ type: 'placeholder', name: 'firstName' }], [{ type: 'text', value: 'you' }]],
    });
  });

  it.each([
    ['Hello {there', 'Spintax: the { at character 7 is never closed.', 'UNCLOSED_BRACE', 7],
    ['{a|{b|c}', 'Spintax: the { at character 1 is never closed.', 'UNCLOSED_BRACE', 1],
    ['{a} {b|{c}', 'Spintax: the { at character 5 is never closed.', 'UNCLOSED_BRACE', 5],
    ['Hi} there', 'Spintax: the } at character 3 has no opening {.', 'UNOPENED_BRACE', 3],
    ['{a}}', 'Spintax: the } at character 4 has no opening {.', 'UNOPENED_BRACE', 4],
    ['Hi {{}}', 'Spintax: an empty placeholder {{}} at character 4.', 'EMPTY_PLACEHOLDER', 4],
    ['{{  }} there', 'Spintax: an empty placeholder {{}} at character 1.', 'EMPTY_PLACEHOLDER', 1],
    ['😀 Hi}', 'Spintax: the } at character 5 has no opening {.', 'UNOPENED_BRACE', 5],
  ])('refuses %j: %s', (text, message, problem, position) => {
    const err = errorOf(text);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.code).toBe('VALIDATION');
    expect(err.name).toBe('SpintaxError');
    expect(err.message).toBe(message);
    expect(err.problem).toBe(problem);
    expect(err.position).toBe(position);
    expect(err.extra).toEqual({});
  });

  it('refuses a placeholder whose name is not an identifier', () => {
    const err = errorOf('Dear {{first name}},');
    expect(err.problem).toBe('BAD_PLACEHOLDER');
    expect(err.message).toBe(
      'Spintax: the placeholder {{first name}} at character 6 is not a valid name; use letters, digits, _ and . such as {{firstName}}.',
    );
    expect(errorOf('{{1st}}').problem).toBe('BAD_PLACEHOLDER');
  });

  it('reports malformed placeholders to onBadPlaceholder instead of throwing, keeping them as text', () => {
    const seen: Array<[string, number]> = [];
    const nodes = parseSpintax('a {{ }} b {{x y}}', { onBadPlaceholder: (raw, at) => seen.push([raw, at]) });
    expect(seen).toEqual([
      ['{{ }}', 3],
      ['{{x y}}', 11],
    ]);
    expect(nodes).toEqual([{ type: 'text', value: 'a {{ }} b {{x y}}' }]);
  });

  it(`accepts ${MAX_SPINTAX_DEPTH} levels of nesting and refuses one more`, () => {
    expect(spin(nested(MAX_SPINTAX_DEPTH), () => 0.99)).toBe('x');
    const err = errorOf(nested(MAX_SPINTAX_DEPTH + 1));
    expect(err.problem).toBe('TOO_DEEP');
    expect(err.position).toBe(3 * MAX_SPINTAX_DEPTH + 1);
    expect(err.message).toBe('Spintax: the { at character 31 nests choices more than 10 levels deep.');
    // A pathological run of braces stops at the limit rather than building a deep tree.
    expect(errorOf('{'.repeat(50_000)).problem).toBe('TOO_DEEP');
  });

  it(`accepts ${MAX_SPINTAX_LENGTH} characters and refuses more`, () => {
    expect(() => validateSpintax('a'.repeat(MAX_SPINTAX_LENGTH))).not.toThrow();
    const err = errorOf('a'.repeat(MAX_SPINTAX_LENGTH + 1));
    expect(err.problem).toBe('TOO_LONG');
    expect(err.message).toBe('Spintax: the text is 100,001 characters long; the limit is 100,000.');
  });
});

describe('validateSpintax', () => {
  it('returns for valid text and throws a SpintaxError for invalid text', () => {
    expect(validateSpintax('{Hi|Hello} {{firstName}} | {a|{b|}}')).toBeUndefined();
    expect(() => validateSpintax('{oops')).toThrow(SpintaxError);
  });
});

describe('spin', () => {
  it('picks every alternative, about uniformly, over many seeded runs', () => {
    const random = seeded(42);
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const out = spin('{a|b|c}', random);
      counts.set(out, (counts.get(out) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(['a', 'b', 'c']);
    for (const n of counts.values()) expect(n).toBeGreaterThan(800);
  });

  it('reaches every leaf of nested choices, including empty ones', () => {
    const random = seeded(7);
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) seen.add(spin('{Hi|Hello {there|friend}}{|!}', random));
    expect([...seen].sort()).toEqual(['Hello friend', 'Hello friend!', 'Hello there', 'Hello there!', 'Hi', 'Hi!']);
  });

  it('is repeatable with the same seed', () => {
    const text = '{a|b|c}{d|e|f}{g|h|i}{j|k|l}';
    expect(spin(text, seeded(3))).toBe(spin(text, seeded(3)));
  });

  it('maps the ends of the random range to the first and last options, and survives a bad random', () => {
    expect(spin('{a|b|c}', () => 0)).toBe('a');
    expect(spin('{a|b|c}', () => 0.9999)).toBe('c');
    expect(spin('{a|b|c}', () => 1)).toBe('a');
    expect(spin('{a|b|c}', () => Number.NaN)).toBe('a');
  });

  it('leaves placeholders as normalized {{name}} for the placeholder step', () => {
    expect(spin('{Hi|Hello} {{ firstName }}, {{company}}', () => 0)).toBe('Hi {{firstName}}, {{company}}');
    expect(spin('{{{firstName}}|you}', () => 0)).toBe('{{firstName}}');
  });

  it('renders placeholders with a callback when one is given', () => {
    expect(
      spin(
        'Hi {{firstName}}',
        () => 0,
        (name) => name.toUpperCase(),
      ),
    ).toBe('Hi FIRSTNAME');
  });

  it('accepts a parsed tree as well as text', () => {
    const nodes = parseSpintax('{x|y} z');
    expect(spin(nodes, () => 0.6)).toBe('y z');
  });

  it('throws a SpintaxError for invalid text', () => {
    expect(() => spin('{a|b')).toThrow(SpintaxError);
  });
});

describe('placeholdersIn', () => {
  it('lists each name once, from every alternative, in order of appearance', () => {
    expect(placeholdersIn('{Hi {{firstName}}|Hey {{ firstName }} at {{company}}} {{senderName}} {|{{customFields.plan}}}')).toEqual([
      'firstName',
      'company',
      'senderName',
      'customFields.plan',
    ]);
    expect(placeholdersIn('no placeholders, \\{\\{escaped\\}\\}')).toEqual([]);
  });

  it('throws a SpintaxError for invalid text', () => {
    expect(() => placeholdersIn('{{ }}')).toThrow(SpintaxError);
  });
});
