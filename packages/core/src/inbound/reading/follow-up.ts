/**
 * The day a NOT_NOW reply names or clearly implies, counted from the UTC day
 * the reply was written:
 * - "next quarter" → the first day of the next calendar quarter; "Q3",
 *   "im dritten Quartal", "vierde kwartaal" → that quarter's first day;
 * - "in September", "im Oktober", "en septembre" → 1 September next (this
 *   year while still ahead, else next year); "next month" → the next
 *   month's first day;
 * - "on 15 May", "am 15. Mai", ISO dates → that day; "on Monday" → the next one;
 * - "in two weeks", "in 3 Wochen", "dans deux semaines", "over twee weken",
 *   "daqui a 10 dias" → that interval on; "in N months" → the same day N
 *   months on, clamped to the month's last day (31 March + 3 months = 30 June);
 * - vague phrases ("after the summer", "next year", "next week", "later") → null.
 * Sentences that ask to be contacted again are read first, so "we froze
 * spend for Q2, reach out in July" gives July. A date after "until" is the
 * end of the busy time, not the follow-up, and is skipped.
 */
import { fold } from './fold.ts';

const DAY_MS = 86_400_000;

const MONTHS: Record<string, number> = {};
const MONTH_NAMES = [
  ['january', 'januar', 'janvier', 'enero', 'januari', 'janeiro', 'janner'],
  ['february', 'februar', 'fevrier', 'febrero', 'februari', 'fevereiro'],
  ['march', 'marz', 'mars', 'marzo', 'maart', 'marco'],
  ['april', 'avril', 'abril'],
  ['may', 'mai', 'mayo', 'mei', 'maio'],
  ['june', 'juni', 'juin', 'junio', 'junho'],
  ['july', 'juli', 'juillet', 'julio', 'julho'],
  ['august', 'aout', 'agosto', 'augustus'],
  ['september', 'sept', 'septembre', 'septiembre', 'setiembre', 'setembro'],
  ['october', 'oktober', 'octobre', 'octubre', 'outubro'],
  ['november', 'novembre', 'noviembre', 'novembro'],
  ['december', 'dezember', 'decembre', 'diciembre', 'dezembro'],
];
MONTH_NAMES.forEach((names, i) => names.forEach((n) => (MONTHS[n] = i)));
const MONTH = `(${Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;

const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  'a couple of': 2,
  couple: 2,
  ein: 1,
  eine: 1,
  einem: 1,
  einer: 1,
  einen: 1,
  zwei: 2,
  drei: 3,
  vier: 4,
  funf: 5,
  sechs: 6,
  sieben: 7,
  acht: 8,
  neun: 9,
  zehn: 10,
  elf: 11,
  zwolf: 12,
  un: 1,
  une: 1,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
  onze: 11,
  douze: 12,
  quinze: 15,
  uno: 1,
  una: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  once: 11,
  doce: 12,
  een: 1,
  twee: 2,
  drie: 3,
  vijf: 5,
  zes: 6,
  zeven: 7,
  negen: 9,
  tien: 10,
  twaalf: 12,
  um: 1,
  uma: 1,
  dois: 2,
  duas: 2,
  sete: 7,
  oito: 8,
  nove: 9,
  dez: 10,
};
const NUMBER = `(\\d{1,3}|${Object.keys(NUMBERS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;
const UNITS: Record<string, 'day' | 'week' | 'month' | 'year'> = {};
for (const [unit, words] of Object.entries({
  day: ['day', 'days', 'tag', 'tage', 'tagen', 'jour', 'jours', 'dia', 'dias', 'dag', 'dagen'],
  week: ['week', 'weeks', 'woche', 'wochen', 'semaine', 'semaines', 'semana', 'semanas', 'weken', 'fortnight'],
  month: ['month', 'months', 'monat', 'monate', 'monaten', 'mois', 'mes', 'meses', 'maand', 'maanden'],
  year: ['year', 'years', 'jahr', 'jahre', 'jahren', 'an', 'ans', 'ano', 'anos', 'jaar', 'jaren'],
}))
  for (const w of words) UNITS[w] = unit as 'day' | 'week' | 'month' | 'year';
const UNIT = `(${Object.keys(UNITS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;

/** Words that introduce an interval from now ("in", "within", "dans", "d'ici", "en", "dentro de", "over", "em", "daqui a", "binnen"). */
const FROM_NOW = `(?:in|within|in about|in around|dans|d'ici|en|dentro de|over|em|daqui a|binnen|nach|apres)`;
const ORDINAL_QUARTER: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  '1st': 1,
  '2nd': 2,
  '3rd': 3,
  '4th': 4,
  ersten: 1,
  zweiten: 2,
  dritten: 3,
  vierten: 4,
  '1.': 1,
  '2.': 2,
  '3.': 3,
  '4.': 4,
  premier: 1,
  deuxieme: 2,
  second_fr: 2,
  troisieme: 3,
  quatrieme: 4,
  primer: 1,
  segundo: 2,
  tercer: 3,
  cuarto: 4,
  eerste: 1,
  tweede: 2,
  derde: 3,
  vierde: 4,
  primeiro: 1,
  terceiro: 3,
  quarto: 4,
};
const QUARTER_ORDINAL = `(${Object.keys(ORDINAL_QUARTER)
  .filter((k) => !k.includes('_'))
  .map((k) => k.replace('.', '\\.'))
  .join('|')})`;

const WEEKDAYS: Record<string, number> = {};
[
  ['sunday', 'sonntag', 'dimanche', 'domingo', 'zondag'],
  ['monday', 'montag', 'lundi', 'lunes', 'maandag', 'segunda', 'segunda-feira'],
  ['tuesday', 'dienstag', 'mardi', 'martes', 'dinsdag', 'terca', 'terca-feira'],
  ['wednesday', 'mittwoch', 'mercredi', 'miercoles', 'woensdag', 'quarta', 'quarta-feira'],
  ['thursday', 'donnerstag', 'jeudi', 'jueves', 'donderdag', 'quinta', 'quinta-feira'],
  ['friday', 'freitag', 'vendredi', 'viernes', 'vrijdag', 'sexta', 'sexta-feira'],
  ['saturday', 'samstag', 'samedi', 'sabado', 'zaterdag'],
].forEach((names, i) => names.forEach((n) => (WEEKDAYS[n] = i)));
const WEEKDAY = `(${Object.keys(WEEKDAYS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;

const B = (s: string) => String.raw`(?<![\p{L}\p{N}])${s}(?![\p{L}\p{N}])`;

type Found =
  | { kind: 'date'; y?: number; m: number; d: number }
  | { kind: 'interval'; n: number; unit: 'day' | 'week' | 'month' | 'year' }
  | { kind: 'quarter'; q: number | 'next' }
  | { kind: 'weekday'; wd: number }
  | { kind: 'next-month' };

interface Pattern {
  re: RegExp;
  read: (m: RegExpExecArray) => Found | null;
}

const PATTERNS: Pattern[] = [
  { re: new RegExp(B(String.raw`(\d{4})-(\d{2})-(\d{2})`), 'u'), read: (m) => ({ kind: 'date', y: +m[1]!, m: +m[2]! - 1, d: +m[3]! }) },
  // 15 May, 15th of May, 15. Mai, 15 de mayo, 15 mei
  {
    re: new RegExp(B(String.raw`(\d{1,2})(?:st|nd|rd|th|er|e|\.)? (?:of |de )?${MONTH}`), 'u'),
    read: (m) => ({ kind: 'date', m: MONTHS[m[2]!]!, d: +m[1]! }),
  },
  // May 15th
  { re: new RegExp(B(String.raw`${MONTH} (\d{1,2})(?:st|nd|rd|th)?`), 'u'), read: (m) => ({ kind: 'date', m: MONTHS[m[1]!]!, d: +m[2]! }) },
  // 15.05. (German style; day first)
  {
    re: new RegExp(B(String.raw`(\d{1,2})\.(\d{1,2})\.(\d{4})?`), 'u'),
    read: (m) => ({ kind: 'date', y: m[3] ? +m[3] : undefined, m: +m[2]! - 1, d: +m[1]! }),
  },
  {
    re: new RegExp(B(String.raw`${FROM_NOW} ${NUMBER} ${UNIT}`), 'u'),
    read: (m) => ({ kind: 'interval', n: numberOf(m[1]!), unit: UNITS[m[2]!]! }),
  },
  { re: new RegExp(B(String.raw`(?:a|in a|one) fortnight`), 'u'), read: () => ({ kind: 'interval', n: 2, unit: 'week' }) },
  {
    re: new RegExp(
      B(
        String.raw`next quarter|(?:nachste[nms]?|kommende[nms]?) quartal|(?:prochain trimestre|trimestre prochain)|(?:proximo|siguiente) trimestre|(?:volgend|volgende|komend|komende) kwartaal`,
      ),
      'u',
    ),
    read: () => ({ kind: 'quarter', q: 'next' }),
  },
  {
    re: new RegExp(B(String.raw`q([1-4])|([1-4])(?:st|nd|rd|th)? quarter|t([1-4])`), 'u'),
    read: (m) => ({ kind: 'quarter', q: +(m[1] ?? m[2] ?? m[3])! }),
  },
  {
    re: new RegExp(B(String.raw`${QUARTER_ORDINAL} (?:quarter|quartal|trimestre|kwartaal)`), 'u'),
    read: (m) => ({ kind: 'quarter', q: ORDINAL_QUARTER[m[1]!]! }),
  },
  {
    re: new RegExp(
      B(
        String.raw`next month|(?:nachsten|kommenden) monat|le mois prochain|el (?:mes que viene|proximo mes)|volgende maand|(?:no )?proximo mes`,
      ),
      'u',
    ),
    read: () => ({ kind: 'next-month' }),
  },
  // in September / im Oktober / en septembre / em setembro / around November: a named month needs a word before it ("may" alone is a verb).
  {
    re: new RegExp(
      B(
        String.raw`(?:in|im|en|em|op|around|by|from|early|late|mid|ab|anfang|ende|mitte|debut|fin|courant|a partir de|a principios de|a finales de|a mediados de|no inicio de|no final de|vanaf|begin|eind|medio|rond|come|this|next|de|d'|in early|in late|after|nach|apres|despues de|depois de|na)\s?${MONTH}`,
      ),
      'u',
    ),
    read: (m) => ({ kind: 'date', m: MONTHS[m[1]!]!, d: 1 }),
  },
  {
    re: new RegExp(B(String.raw`(?:on|next|am|le|el|op|na|no|this|coming)\s${WEEKDAY}`), 'u'),
    read: (m) => ({ kind: 'weekday', wd: WEEKDAYS[m[1]!]! }),
  },
];

/** "until the end of April", "bis Ende Mai", "jusqu'à la fin", "for Q2": when the busy time ends or what it covers, not when to come back. */
const NOT_A_FOLLOW_UP =
  /(?:until|till|through|for|bis|jusqu'|jusqu'a|hasta|tot|ate|durante|during|pour|para|fur)\s(?:the\s|la\s|el\s|de\s|a\s|o\s)?(?:end\s(?:of\s)?|fin\s(?:de\s)?|finales\s(?:de\s)?|ende\s|eind\s|final\s(?:de\s)?)?$/;

/** Sentences that ask for contact later: their dates come first. */
const CUE =
  /(?:reach|check|try|ping|contact|come back|get back|follow up|touch base|hear from|revisit|conversation|circle|melden|kontakt|schreiben|recontact|revenez|reviendr|relanc|escrib|vuelv|retom|neem|procur|volte|fale|again|wieder|nochmal|de novo|opnieuw|open to)/;

function numberOf(word: string): number {
  return /^\d+$/.test(word) ? Number(word) : NUMBERS[word]!;
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The same day `months` months on, clamped to that month's last day. */
export function addMonths(day: number, months: number): number {
  const d = new Date(day);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), last));
}

/** The next time `month`/`day` comes round: this year while still ahead, else next year. */
function nextOccurrence(today: number, month: number, day: number, year?: number): number | null {
  if (month < 0 || month > 11 || day < 1 || day > 31) return null;
  const y = year ?? new Date(today).getUTCFullYear();
  let when = Date.UTC(y, month, day);
  if (year === undefined && when <= today) when = Date.UTC(y + 1, month, day);
  // Date.UTC rolls 31 June into July: refuse it.
  return new Date(when).getUTCDate() === day ? when : null;
}

function resolve(found: Found, today: number): number | null {
  const now = new Date(today);
  switch (found.kind) {
    case 'date':
      return nextOccurrence(today, found.m, found.d, found.y);
    case 'interval':
      if (found.unit === 'day') return today + found.n * DAY_MS;
      if (found.unit === 'week') return today + found.n * 7 * DAY_MS;
      return addMonths(today, found.unit === 'month' ? found.n : found.n * 12);
    case 'quarter': {
      if (found.q === 'next') return Date.UTC(now.getUTCFullYear(), Math.floor(now.getUTCMonth() / 3) * 3 + 3, 1);
      return nextOccurrence(today, (found.q - 1) * 3, 1);
    }
    case 'next-month':
      return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    case 'weekday':
      return today + ((found.wd - now.getUTCDay() + 7) % 7 || 7) * DAY_MS;
  }
}

/** The first follow-up date in `sentence`, skipping dates that end a busy time. */
function dateIn(sentence: string, today: number): number | null {
  let best: { at: number; when: number } | null = null;
  for (const { re, read } of PATTERNS) {
    const m = re.exec(sentence);
    if (!m || NOT_A_FOLLOW_UP.test(sentence.slice(Math.max(0, m.index - 30), m.index))) continue;
    const found = read(m);
    const when = found && resolve(found, today);
    if (when !== null && when !== undefined && when > today && (!best || m.index < best.at)) best = { at: m.index, when };
  }
  return best?.when ?? null;
}

export function followUpOn(ownWords: string, writtenAt: number): string | null {
  const today = Math.floor(writtenAt / DAY_MS) * DAY_MS;
  const sentences = fold(ownWords.slice(0, 6000))
    .replace(/\s+/g, ' ')
    .split(/(?<=\D[.!?])\s/); // "am 15. Mai": a day's dot ends no sentence
  const ordered = [...sentences.filter((s) => CUE.test(s)), ...sentences.filter((s) => !CUE.test(s))];
  for (const sentence of ordered) {
    const when = dateIn(sentence, today);
    if (when !== null) return iso(when);
  }
  return null;
}
