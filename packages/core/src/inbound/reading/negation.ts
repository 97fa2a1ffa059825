/**
 * Negation in six languages: "not interested", "nicht interessiert", "pas
 * intéressé", "no nos interesa", "geen interesse", "não temos interesse",
 * "don't remove me". A match counts as affirmed only when none of these
 * words stands just before it in the same clause (a comma or full stop ends
 * the reach of a "no": "No problem, send it over" still asks for it).
 */
const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'dont',
  'nor',
  'without',
  'hardly',
  'nicht',
  'kein',
  'keine',
  'keinen',
  'keiner',
  'nie',
  'niemals',
  'ne',
  'pas',
  'jamais',
  'sans',
  'nunca',
  'ni',
  'tampoco',
  'geen',
  'niet',
  'nooit',
  'nao',
  'nem',
  'sem',
]);
const CLAUSE_END = /[.,;:!?¿¡\n()]/;
/** Doubt or a past that did not happen ("not sure we'd be interested", "would have been interested"): the rest of the clause is not affirmed. */
const HEDGE =
  /(?:not sure|don't know|do not know|no idea|doubt|unlikely|would have|might have|could have|used to|nicht sicher|weiss nicht|pas sur|je doute|no se si|no estoy seguro|niet zeker|weet niet|nao sei|nao tenho certeza)/;
/** How far back a negation reaches, in words. */
const REACH = 3;

/**
 * True when a negation word stands within the few words before `index`, in
 * the same clause, or (with `hedges`) a doubt opens the clause. A removal
 * request is read without hedges: "I doubt you'll listen, but remove me" asks.
 */
export function negatedAt(text: string, index: number, hedges = true): boolean {
  // A dash between spaces, or a "but", ends a clause as a comma does ("Not uninterested - send me the details").
  const before = text.slice(Math.max(0, index - 48), index).replace(/ (?:[-–]|but|aber|mais|pero|maar) /g, ' , ');
  let start = before.length;
  while (start > 0 && !CLAUSE_END.test(before[start - 1]!)) start--;
  const clause = before.slice(start);
  if (hedges && HEDGE.test(clause)) return true;
  const words = clause.trim().split(/\s+/).slice(-REACH);
  return words.some((word) => NEGATORS.has(word) || word.endsWith("n't") || word === "n'");
}

/** Whether `re` (g flag) matches somewhere right after a negation ("not buying right now"). */
export function negatedSomewhere(text: string, re: RegExp): boolean {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (negatedAt(text, m.index)) return true;
    if (m[0].length === 0) re.lastIndex++;
  }
  return false;
}

/** True when the matched words include a negation of their own. */
export function carriesNegation(words: string): boolean {
  return words.split(/[\s,.!?]+/).some((word) => NEGATORS.has(word) || word.endsWith("n't"));
}

/** Whether `re` (compiled with the g flag) matches somewhere in `text` without a negation just before. */
export function affirmed(text: string, re: RegExp): boolean {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    // A pattern that carries its own negation ("pas intéressé", "no nos interesa") is read as written: "ne … pas" is one negation.
    if (carriesNegation(m[0]) || !negatedAt(text, m.index)) return true;
    if (m[0].length === 0) re.lastIndex++;
  }
  return false;
}
