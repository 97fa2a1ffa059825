import { ValidationError } from '../errors.ts';

/**
 * Spintax: `{a|b|c}` picks one alternative per email, alternatives nest, and
 * `{{name}}` is a placeholder, not spintax. The parser validates campaign copy
 * (PATCH answers 422 on a SpintaxError) and feeds the renderer. Syntax is
 * described for users in docs/copy.md.
 */

/** Deepest nesting of `{...}` choices a text may use. */
export const MAX_SPINTAX_DEPTH = 10;

/** Longest text, in UTF-16 units, the parser accepts. */
export const MAX_SPINTAX_LENGTH = 100_000;

/** What a placeholder name must look like once trimmed: `firstName`, `customFields.plan`. */
export const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** One piece of parsed copy. A choice always has at least one option; an option may be empty. */
export type SpinNode = { type: 'text'; value: string } | { type: 'placeholder'; name: string } | { type: 'choice'; options: SpinNode[][] };

/** Which rule the text broke; stable, unlike the message. */
export type SpintaxProblem = 'UNCLOSED_BRACE' | 'UNOPENED_BRACE' | 'EMPTY_PLACEHOLDER' | 'BAD_PLACEHOLDER' | 'TOO_DEEP' | 'TOO_LONG';

/**
 * Invalid spintax. The message names the problem and its 1-based character
 * position; `position` and `problem` carry the same for code. They are
 * properties rather than `extra` because the error middleware spreads `extra`
 * into the 422 body, whose shape is fixed as `{ error }`.
 */
export class SpintaxError extends ValidationError {
  constructor(
    message: string,
    readonly problem: SpintaxProblem,
    readonly position?: number,
  ) {
    super(message);
  }
}

/** Options for {@link parseSpintax}. */
export interface ParseOptions {
  /**
   * Called for a malformed placeholder such as `{{ }}` or `{{first name}}`
   * instead of throwing; the raw text is then kept as literal text. Lets the
   * quality score report a placeholder slip without calling the whole text invalid.
   */
  onBadPlaceholder?: (raw: string, position: number) => void;
}

const ESCAPABLE = new Set(['{', '}', '|', '\\']);

interface Frame {
  /** Index of the opening `{`, for the "never closed" message. */
  start: number;
  options: SpinNode[][];
  /** The sequence the finished choice is appended to. */
  parent: SpinNode[];
}

/**
 * Parses copy into a tree of text, placeholders and choices.
 *
 * - `{a|b}` is a choice; options may be empty (`{|, }`) and may nest.
 * - `{{name}}` (spaces around the name allowed) is a placeholder when nothing
 *   between the braces is `{`, `|` or `\`; otherwise `{{` opens two nested choices,
 *   so `{{Hi|Hello} there|Hey}` still works.
 * - `\{`, `\}`, `\|`, `\\` are literal characters; any other backslash is literal.
 * - A `|` outside braces is literal text.
 *
 * @throws SpintaxError for an unbalanced brace, a malformed placeholder, more than
 *   {@link MAX_SPINTAX_DEPTH} levels of nesting, or more than {@link MAX_SPINTAX_LENGTH} characters.
 */
export function parseSpintax(text: string, options: ParseOptions = {}): SpinNode[] {
  if (text.length > MAX_SPINTAX_LENGTH) {
    throw new SpintaxError(
      `Spintax: the text is ${text.length.toLocaleString('en-US')} characters long; the limit is ${MAX_SPINTAX_LENGTH.toLocaleString('en-US')}.`,
      'TOO_LONG',
    );
  }
  const root: SpinNode[] = [];
  const stack: Frame[] = [];
  let seq = root;
  let buf = '';
  const flush = (): void => {
    if (buf) seq.push({ type: 'text', value: buf });
    buf = '';
  };

  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next !== undefined && ESCAPABLE.has(next)) {
        buf += next;
        i += 2;
      } else {
        buf += ch;
        i += 1;
      }
      continue;
    }
    if (ch === '{') {
      const end = text[i + 1] === '{' ? placeholderEnd(text, i) : -1;
      if (end !== -1) {
        const raw = text.slice(i, end);
        const name = raw.slice(2, -2).trim();
        if (PLACEHOLDER_NAME.test(name)) {
          flush();
          seq.push({ type: 'placeholder', name });
        } else if (options.onBadPlaceholder) {
          options.onBadPlaceholder(raw, charPosition(text, i));
          buf += raw;
        } else {
          throw badPlaceholder(text, i, raw, name);
        }
        i = end;
        continue;
      }
      if (stack.length >= MAX_SPINTAX_DEPTH) {
        throw new SpintaxError(
          `Spintax: the { at character ${charPosition(text, i)} nests choices more than ${MAX_SPINTAX_DEPTH} levels deep.`,
          'TOO_DEEP',
          charPosition(text, i),
        );
      }
      flush();
      stack.push({ start: i, options: [], parent: seq });
      seq = [];
      i += 1;
      continue;
    }
    const frame = stack[stack.length - 1];
    if (ch === '|' && frame) {
      flush();
      frame.options.push(seq);
      seq = [];
      i += 1;
      continue;
    }
    if (ch === '}') {
      if (!frame) {
        throw new SpintaxError(
          `Spintax: the } at character ${charPosition(text, i)} has no opening {.`,
          'UNOPENED_BRACE',
          charPosition(text, i),
        );
      }
      flush();
      stack.pop();
      frame.options.push(seq);
      seq = frame.parent;
      seq.push({ type: 'choice', options: frame.options });
      i += 1;
      continue;
    }
    buf += ch;
    i += 1;
  }

  // The innermost open brace is reported: it is the one nearest the slip.
  const open = stack[stack.length - 1];
  if (open) {
    throw new SpintaxError(
      `Spintax: the { at character ${charPosition(text, open.start)} is never closed.`,
      'UNCLOSED_BRACE',
      charPosition(text, open.start),
    );
  }
  flush();
  return root;
}

/**
 * Throws a SpintaxError when `text` is not valid spintax; returns nothing otherwise.
 * @throws SpintaxError as {@link parseSpintax} does.
 */
export function validateSpintax(text: string): void {
  parseSpintax(text);
}

/**
 * Renders one variant: each choice takes one option, uniformly at random.
 * Placeholders come out as `{{name}}` (normalized, no spaces) for the
 * placeholder step unless `placeholder` renders them directly, which is how
 * escaped braces stay literal (see renderCopy in placeholders.ts).
 *
 * @param random returns a number in [0, 1); pass a seeded one for repeatable output.
 * @throws SpintaxError when given invalid text.
 */
export function spin(
  input: string | readonly SpinNode[],
  random: () => number = Math.random,
  placeholder: (name: string) => string = (name) => `{{${name}}}`,
): string {
  const nodes = typeof input === 'string' ? parseSpintax(input) : input;
  const parts: string[] = [];
  const walk = (seq: readonly SpinNode[]): void => {
    for (const node of seq) {
      if (node.type === 'text') parts.push(node.value);
      else if (node.type === 'placeholder') parts.push(placeholder(node.name));
      else {
        const r = random();
        // A misbehaving random (1, NaN, negative) must not index past the options.
        const pick = r >= 0 && r < 1 ? Math.floor(r * node.options.length) : 0;
        walk(node.options[pick] ?? []);
      }
    }
  };
  walk(nodes);
  return parts.join('');
}

/**
 * Unique placeholder names used anywhere in `text`, every alternative included,
 * in order of first appearance.
 * @throws SpintaxError when `text` is not valid spintax.
 */
export function placeholdersIn(text: string): string[] {
  const names = new Set<string>();
  const walk = (seq: readonly SpinNode[]): void => {
    for (const node of seq) {
      if (node.type === 'placeholder') names.add(node.name);
      else if (node.type === 'choice') node.options.forEach(walk);
    }
  };
  walk(parseSpintax(text));
  return [...names];
}

/**
 * Index just past the `}}` closing the placeholder that starts at `start`, or -1
 * when `{{` here opens nested choices instead: a `{`, `|` or `\` before the
 * first `}`, or a single `}`, means spintax.
 */
function placeholderEnd(text: string, start: number): number {
  for (let k = start + 2; k < text.length; k++) {
    const c = text[k];
    if (c === '}') return text[k + 1] === '}' ? k + 2 : -1;
    if (c === '{' || c === '|' || c === '\\') return -1;
  }
  return -1;
}

function badPlaceholder(text: string, index: number, raw: string, name: string): SpintaxError {
  const at = charPosition(text, index);
  if (name === '') {
    return new SpintaxError(`Spintax: an empty placeholder {{}} at character ${at}.`, 'EMPTY_PLACEHOLDER', at);
  }
  const shown = raw.length > 40 ? `${raw.slice(0, 37)}...` : raw;
  return new SpintaxError(
    `Spintax: the placeholder ${shown} at character ${at} is not a valid name; use letters, digits, _ and . such as {{firstName}}.`,
    'BAD_PLACEHOLDER',
    at,
  );
}

/** 1-based position counted in characters (code points), as an editor shows it, not UTF-16 units. */
function charPosition(text: string, index: number): number {
  let n = 1;
  for (let k = 0; k < index; k++) {
    const code = text.charCodeAt(k);
    // Skip the low half of a surrogate pair so an emoji counts once.
    if (code >= 0xd800 && code <= 0xdbff && k + 1 < index) {
      const low = text.charCodeAt(k + 1);
      if (low >= 0xdc00 && low <= 0xdfff) k++;
    }
    n++;
  }
  return n;
}
