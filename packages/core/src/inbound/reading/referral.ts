/**
 * Someone else's address that the reply's own words give ("talk to
 * jana@acme.com", "Anouk Blom, anouk.blom@…", "Fwd to: Harvey Chavez
 * <harvey.chavez@…>"), with the person's name when the words give one.
 * Only own words are read (the quote and the signature, with its "E: …"
 * line, are cut before), and the replier's own and our own addresses never
 * count.
 */
import type { Referral } from '../reply-status.ts';
import { fold } from './fold.ts';

/** Bounded parts: a hostile run of address characters costs linear time. */
const EMAIL = /[\p{L}\p{N}._%+'-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,8}/gu;
/** Addresses nobody can be referred to. */
const MACHINE = /^(?:no-?reply|do-?not-?reply|mailer-daemon|postmaster|bounces?)@/;
const TITLE = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'dr',
  'prof',
  'herr',
  'frau',
  'monsieur',
  'madame',
  'mme',
  'mlle',
  'm',
  'sr',
  'sra',
  'srta',
  'don',
  'dona',
  'dhr',
  'mevr',
  'mevrouw',
  'meneer',
  'sig',
  'senhor',
  'senhora',
]);
const PARTICLE = new Set(['van', 'de', 'der', 'den', 'von', 'da', 'dos', 'das', 'du', 'la', 'le', 'di', 'del', 'ten', 'ter', 'zu']);
const CAPITALISED = /^\p{Lu}[\p{Ll}'’-]+$/u;

/** Runs of capitalised words (with name particles inside) in `text`, each with where it ends. */
function nameRuns(text: string): { words: string[]; end: number }[] {
  const runs: { words: string[]; end: number }[] = [];
  let current: string[] = [];
  let end = 0;
  for (const m of text.matchAll(/[\p{L}'’-]+/gu)) {
    const word = m[0];
    const isName = CAPITALISED.test(word) && !TITLE.has(fold(word));
    const isParticle = current.length > 0 && PARTICLE.has(word);
    if (isName || isParticle) {
      current.push(word);
      end = m.index + word.length;
      continue;
    }
    if (current.length) runs.push({ words: current, end });
    current = [];
  }
  if (current.length) runs.push({ words: current, end });
  return runs.map((r) => trimParticles(r)).filter((r) => r.words.length > 0);
}

function trimParticles(run: { words: string[]; end: number }) {
  const words = [...run.words];
  while (words.length && PARTICLE.has(words.at(-1)!)) words.pop();
  return { words, end: run.end };
}

/** A name whose words the address's local part contains ("Ines Böhm" for inesb@…), or one written right against the address. */
function nameFor(sentenceBefore: string, address: string): string | null {
  const local = fold(address.split('@')[0]!);
  const runs = nameRuns(sentenceBefore).reverse();
  for (const run of runs) {
    const matches = run.words.some((w) => fold(w).length >= 2 && !PARTICLE.has(w) && local.includes(fold(w)));
    if (matches) return run.words.join(' ');
  }
  const last = runs[0];
  // "Jana Novak <jn@acme.com>", "Jana Novak (jn@acme.com)": the name stands against the address.
  if (last && last.words.length >= 2 && /^[\s<(:,-]*$/.test(sentenceBefore.slice(last.end))) return last.words.join(' ');
  return null;
}

/** The text of the sentence before `index`, up to the last sentence end or line break. */
function sentenceBefore(text: string, index: number): string {
  const before = text.slice(Math.max(0, index - 160), index);
  let cut = before.length - 1;
  while (cut >= 0 && before[cut] !== '\n' && !(/[.!?]/.test(before[cut]!) && /\s/.test(before[cut + 1] ?? ''))) cut--;
  return before.slice(cut + 1);
}

/** Own words are read from their start, as the rules read them: a referral is given near the request. */
const READ_CHARS = 6000;

/** An address alone on its line is how signatures write their own address, not how a reply names someone. */
function aloneOnLine(text: string, start: number, end: number): boolean {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = text.indexOf('\n', end);
  return (
    text
      .slice(lineStart, lineEnd < 0 ? text.length : lineEnd)
      .trim()
      .replace(/^[<([]|[>)\].]$/g, '') === text.slice(start, end)
  );
}

/** The replier's other address (a personal one, a second domain): its local part holds both their first and last name. */
function repliersOwn(email: string, fromName: string | undefined): boolean {
  const words = fold(fromName ?? '')
    .split(/[^a-z]+/)
    .filter((w) => w.length >= 2);
  const local = fold(email.split('@')[0]!);
  return words.length >= 2 && local.includes(words[0]!) && local.includes(words.at(-1)!);
}

export function referralOf(ownWords: string, excluded: string[], fromName?: string): Referral | null {
  const text = ownWords.slice(0, READ_CHARS);
  if (!text.includes('@')) return null;
  const skip = new Set(excluded.map((a) => a.toLowerCase()));
  for (const m of text.matchAll(EMAIL)) {
    const email = m[0].replace(/^[.'-]+|[.'-]+$/g, '').toLowerCase();
    if (skip.has(email) || MACHINE.test(email) || repliersOwn(email, fromName)) continue;
    if (aloneOnLine(text, m.index, m.index + m[0].length)) continue;
    return { email, name: nameFor(sentenceBefore(text, m.index), email) };
  }
  return null;
}
