import { parseSpintax, SpintaxError, type SpinNode } from './spintax.ts';

/**
 * contentQuality (docs/copy.md): an integer 0-100, higher is better, from the
 * subject and template. It starts at 100 and loses the points in
 * QUALITY_PENALTIES; docs/copy.md prints the same table. The score never
 * throws and never depends on chance, so the same copy always scores the same.
 */

/** A campaign's copy as stored; either field may be absent. */
export interface QualityInput {
  subject?: string | null;
  template?: string | null;
}

/** The score and one plain sentence per penalty applied, in the order checked. */
export interface QualityReport {
  score: number;
  reasons: string[];
}

/** One rule of the score: points lost each time it applies, and the most it can take. */
export interface QualityPenalty {
  points: number;
  max?: number;
  rule: string;
}

/**
 * Every penalty the score applies. Counts that depend on which alternative is
 * sent (links, `!`, length) use the worst variant; word lists (spam triggers,
 * capitals) look at every alternative, since any of them may reach a lead.
 */
export const QUALITY_PENALTIES = {
  invalidSpintax: { points: 30, rule: 'Per field (subject, template) whose spintax does not parse.' },
  badPlaceholder: { points: 10, rule: 'Per field with a malformed placeholder such as {{ }} or {{first name}}.' },
  noSubject: { points: 15, rule: 'The subject is empty or missing.' },
  longSubject: { points: 10, rule: 'The subject is over 60 characters in its longest variant, placeholders counted as written.' },
  emptyBody: { points: 50, rule: 'The template has no words (replaces the short-body penalty).' },
  shortBody: { points: 15, rule: 'The template is under 20 words in its shortest variant.' },
  longBody: { points: 15, rule: 'The template is over 200 words in its longest variant.' },
  spamWord: { points: 8, max: 40, rule: 'Each spam-trigger word or phrase, in the subject or any alternative of the template.' },
  allCaps: { points: 5, max: 20, rule: 'Each ALL-CAPS word of 4 or more letters, in the subject or any alternative.' },
  extraLink: { points: 10, rule: 'Each link (http://, https://, www.) beyond 2, in the variant with the most.' },
  exclamations: { points: 5, rule: 'More than one ! in the subject and template together, in the variant with the most.' },
} as const satisfies Record<string, QualityPenalty>;

/** Thresholds the penalties above name. */
export const QUALITY_LIMITS = { minWords: 20, maxWords: 200, maxSubjectChars: 60, freeLinks: 2, freeExclamations: 1 } as const;

/**
 * Words and phrases spam filters and readers associate with bulk mail. Matched
 * case-insensitively as whole words; a space or hyphen in a phrase matches any
 * run of spaces or hyphens, so "risk-free" also catches "risk free".
 */
export const SPAM_TRIGGERS = [
  'free',
  'guarantee',
  'guaranteed',
  'act now',
  '100%',
  'risk-free',
  'winner',
  'cash',
  'urgent',
  'click here',
  'buy now',
  'order now',
  'call now',
  'apply now',
  'limited time',
  'no obligation',
  'no cost',
  '$$$',
  'make money',
  'earn money',
  'extra income',
  'double your',
  'once in a lifetime',
  'congratulations',
  'prize',
  'lowest price',
  'best price',
  'cheap',
  'special promotion',
  'exclusive deal',
  'no credit check',
  'while supplies last',
  'miracle',
  'this is not spam',
  'dear friend',
] as const;

const SPAM_PATTERN = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...SPAM_TRIGGERS]
    // Longest first, so "risk-free" is one match rather than also counting "free".
    .sort((a, b) => b.length - a.length)
    .map(triggerPattern)
    .join('|')})(?![\\p{L}\\p{N}])`,
  'giu',
);

function triggerPattern(trigger: string): string {
  const body = trigger
    .split(/[\s-]+/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s-]+');
  // "Feel free to reply" is ordinary courtesy in a cold email, not an offer.
  return trigger === 'free' ? `(?<!feel\\s+)${body}` : body;
}

// One match per link: "https://www.x.test" must not count twice.
const LINK = /\bhttps?:\/\/\S*|\bwww\.\S*/gi;
const ALL_CAPS = /(?<![\p{L}\p{N}])\p{Lu}{4,}(?![\p{L}\p{N}])/gu;
const WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;
const VALID_PLACEHOLDER = /\{\{\s*[A-Za-z_][A-Za-z0-9_.]*\s*\}\}/g;
// A placeholder stands for one ordinary lower-case word in word lists and counts.
const PLACEHOLDER_STANDIN = 'x';

interface Field {
  nodes: SpinNode[];
  /** Every alternative side by side, for the word lists. */
  flat: string;
  spintaxError?: string;
  badPlaceholders: string[];
}

/** The copy's score: `explainQuality(input).score`. */
export function contentQuality(input: QualityInput): number {
  return explainQuality(input).score;
}

/** The score with a plain sentence for each penalty applied; never throws. */
export function explainQuality(input: QualityInput): QualityReport {
  const subjectText = input.subject ?? '';
  const subject = analyse(subjectText);
  const template = analyse(input.template ?? '');
  const P = QUALITY_PENALTIES;
  const L = QUALITY_LIMITS;
  let score = 100;
  const reasons: string[] = [];
  const penalize = (points: number, reason: string): void => {
    if (points <= 0) return;
    score -= points;
    reasons.push(`${reason} (-${points}).`);
  };

  for (const [label, field] of [
    ['subject', subject],
    ['template', template],
  ] as const) {
    if (field.spintaxError) {
      penalize(P.invalidSpintax.points, `The ${label} has invalid spintax: ${field.spintaxError.replace(/^Spintax: |\.$/g, '')}`);
    }
    if (field.badPlaceholders.length) {
      penalize(P.badPlaceholder.points, `The ${label} has a malformed placeholder ${field.badPlaceholders[0]}`);
    }
  }

  if (subjectText.trim() === '') penalize(P.noSubject.points, 'The subject is empty');
  else {
    const chars = extremes(
      subject.nodes,
      (s) => [...s].length,
      (name) => name.length + 4,
    ).max;
    if (chars > L.maxSubjectChars) penalize(P.longSubject.points, `The subject can be ${chars} characters long, over ${L.maxSubjectChars}`);
  }

  const words = extremes(
    template.nodes,
    (s) => count(s, WORD),
    () => 1,
  );
  if (words.max === 0) penalize(P.emptyBody.points, 'The template has no words');
  else if (words.min < L.minWords) penalize(P.shortBody.points, `The template can be as short as ${words.min} words, under ${L.minWords}`);
  if (words.max > L.maxWords) penalize(P.longBody.points, `The template can be as long as ${words.max} words, over ${L.maxWords}`);

  const flat = `${subject.flat}\n${template.flat}`;
  const triggers = [...flat.matchAll(SPAM_PATTERN)].map((m) => m[0].toLowerCase().replace(/[\s-]+/g, ' '));
  if (triggers.length) {
    penalize(
      Math.min(P.spamWord.max, triggers.length * P.spamWord.points),
      `The copy uses ${plural(triggers.length, 'spam-trigger word or phrase', 'spam-trigger words or phrases')} (${[...new Set(triggers)].join(', ')})`,
    );
  }
  const caps = [...flat.matchAll(ALL_CAPS)].map((m) => m[0]);
  if (caps.length) {
    penalize(
      Math.min(P.allCaps.max, caps.length * P.allCaps.points),
      `The copy has ${plural(caps.length, 'word', 'words')} in capitals (${[...new Set(caps)].join(', ')})`,
    );
  }

  const links =
    extremes(
      subject.nodes,
      (s) => count(s, LINK),
      () => 0,
    ).max +
    extremes(
      template.nodes,
      (s) => count(s, LINK),
      () => 0,
    ).max;
  if (links > L.freeLinks) {
    penalize((links - L.freeLinks) * P.extraLink.points, `The copy has ${links} links, more than ${L.freeLinks}`);
  }
  const bangs =
    extremes(
      subject.nodes,
      (s) => count(s, /!/g),
      () => 0,
    ).max +
    extremes(
      template.nodes,
      (s) => count(s, /!/g),
      () => 0,
    ).max;
  if (bangs > L.freeExclamations) penalize(P.exclamations.points, `The copy has ${bangs} exclamation marks`);

  return { score: Math.max(0, Math.min(100, score)), reasons };
}

/**
 * Parses leniently: malformed placeholders are noted and kept as text, and
 * copy that does not parse is scored as plain text with its braces and bars
 * blanked out, so one slip costs its penalty rather than hiding everything else.
 */
function analyse(text: string): Field {
  const badPlaceholders: string[] = [];
  try {
    const nodes = parseSpintax(text, { onBadPlaceholder: (raw) => badPlaceholders.push(raw) });
    return { nodes, flat: flatten(nodes), badPlaceholders };
  } catch (err) {
    if (!(err instanceof SpintaxError)) throw err;
    const loose = text.replace(VALID_PLACEHOLDER, ` ${PLACEHOLDER_STANDIN} `).replace(/[{}|\\]/g, ' ');
    return { nodes: [{ type: 'text', value: loose }], flat: loose, spintaxError: err.message, badPlaceholders };
  }
}

function flatten(nodes: readonly SpinNode[]): string {
  return nodes
    .map((node) => {
      if (node.type === 'text') return node.value;
      if (node.type === 'placeholder') return PLACEHOLDER_STANDIN;
      // Spaces keep neighbouring alternatives from merging into one word.
      return node.options.map(flatten).join(' ');
    })
    .join('');
}

/**
 * The least and most `measure` any variant can reach. Exact for counts that
 * add up across pieces (characters, `!`, links); for words it is close enough,
 * since only a word split by a choice ("Hel{lo|p}") is counted twice.
 */
function extremes(
  nodes: readonly SpinNode[],
  measureText: (text: string) => number,
  measurePlaceholder: (name: string) => number,
): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const node of nodes) {
    if (node.type === 'text') {
      const n = measureText(node.value);
      min += n;
      max += n;
    } else if (node.type === 'placeholder') {
      const n = measurePlaceholder(node.name);
      min += n;
      max += n;
    } else {
      // A loop, not Math.min(...): a choice may hold tens of thousands of options.
      let least = Infinity;
      let most = 0;
      for (const option of node.options) {
        const e = extremes(option, measureText, measurePlaceholder);
        least = Math.min(least, e.min);
        most = Math.max(most, e.max);
      }
      min += least;
      max += most;
    }
  }
  return { min, max };
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
