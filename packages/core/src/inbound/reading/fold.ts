/**
 * One spelling for matching: people drop accents ("desinscrire"), phones
 * curl apostrophes ("don’t") and German writes ß or ss. Rules match the
 * folded text, so each pattern is written once, in lower case and without
 * accents.
 */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[\u2018\u2019\u02bc\u0060\u00b4]/g, "'")
    .replace(/[\u201c\u201d\u00ab\u00bb\u201e]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[ \t\u00a0]+/g, ' ');
}

/** Each line folded and trimmed: one fold of the whole text (folding keeps line breaks), far cheaper than one per line. */
export function foldLines(lines: string[]): string[] {
  return fold(lines.join('\n'))
    .split('\n')
    .map((line) => line.trim());
}

/**
 * Compiles a list of pattern sources (folded, lower case) into one whole-word
 * regex; `g` for use with `affirmed`. Folded text has no accents left, so
 * ASCII word bounds serve, and the regex needs no Unicode mode (several times
 * faster on every reply).
 */
export function anyOf(sources: string[], flags: '' | 'g' = ''): RegExp {
  return new RegExp(String.raw`(?<![a-z0-9])(?:${sources.join('|')})(?![a-z0-9])`, flags);
}
