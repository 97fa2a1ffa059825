/**
 * The reply's own words: what the replier wrote, without the quoted original
 * (where our footer and its "Unsubscribe" link live), the signature, the
 * legal disclaimer or the "external sender" banner. Only these words may
 * decide a status or give a referral.
 */
import { fold, foldLines } from './fold.ts';
import { outsideQuote } from './quote.ts';

/** Replies are read from their first 64 KB: what the engine keeps of a message, and a bound on the work a hostile text can cause. */
export const MAX_TEXT = 64 * 1024;

/** Mail clients' own lines ("Sent from my iPhone", "Outlook für iOS herunterladen", "Enviado desde mi Samsung Galaxy"): the reply ends above them. */
const DEVICE =
  /(?:iphone|ipad|android|outlook|samsung|galaxy|blackberry|smartphone|mobile|my phone|handy|telefoon|telemovel|celular|yahoo|gmail|windows|proton ?mail|mail for|huawei|xiaomi|pixel)/;
const DEVICE_VERB =
  /^(?:sent|get|download|envoye|telecharger|gesendet|von meinem|enviado|enviada|obtener|descargar|verstuurd|verzonden|baixe|obter)\b|(?:herunterladen|downloaden|gesendet)$/;

/** Sign-offs in six languages; a line holding only one of these (and maybe a first name) opens the signature. */
const SIGN_OFF = new RegExp(
  '^(?:' +
    [
      'best(?: regards| wishes)?',
      'kind(?:est)? regards',
      'warm(?:est)? regards',
      'regards',
      'many thanks',
      'thanks(?: again| so much)?',
      'thank you',
      'thx',
      'cheers',
      'all the best',
      'sincerely',
      'yours(?: sincerely| truly)?',
      'talk soon',
      'mit freundlichen grussen',
      'freundliche grusse',
      'viele grusse',
      'beste grusse',
      'liebe grusse',
      'herzliche grusse',
      'gruss',
      'grusse',
      'vg',
      'lg',
      'mfg',
      'danke(?: schon)?',
      'cordialement',
      'bien cordialement',
      'bien a vous',
      'bonne journee',
      'belle journee',
      'merci(?: beaucoup)?',
      'salutations',
      'a bientot',
      'amicalement',
      'saludos(?: cordiales)?',
      'un saludo(?: cordial)?',
      'atentamente',
      'un abrazo',
      'abrazos',
      'gracias',
      'muchas gracias',
      'met vriendelijke groet(?:en)?',
      'vriendelijke groet(?:en)?',
      'groet(?:en)?',
      'hartelijke groet(?:en)?',
      'bedankt',
      'dank je(?: wel)?',
      'dank u(?: wel)?',
      'atenciosamente',
      'att',
      'abs',
      'abraco',
      'abracos',
      'obrigad[oa]',
      'cumprimentos',
      'um abraco',
    ].join('|') +
    ")[,.!]{0,2}(?: [a-z][a-z'-]{1,20})?$",
);

/** A contact line of a signature ("T: 0121 …", "M: … | E: …", "Mobil: …", "www.…", a bare phone number, an inline image). */
const CONTACT =
  /^(?:(?:t|m|e|p|f|w|d|o|tel|tel\.|phone|mobile|mobil|mob|cell|office|direct|direct line|fax|email|e-mail|web|ligne directe|movil|telefone|telefoon|celular|telemovel)\s?[:.]|www\.|https?:\/\/\S+$|\[cid:|<https?:|\+?[\d(][\d\s()./-]{6,}(?:\s?\|.*)?$)/;

/** Banners and disclaimers, in six languages: phrases that only legal or security boilerplate uses. */
const DISCLAIMER = new RegExp(
  [
    'originated from outside',
    'came from outside',
    'external (?:email|sender)',
    'intended (?:solely|only|exclusively) for',
    'if you (?:are not|have received) ',
    'intended recipient',
    'confidentiality notice',
    'privacy notice',
    'processes personal data',
    'consider the environment before printing',
    'may contain confidential',
    'stammt von einem externen',
    'externen absender',
    'personenbezogenen daten nach art',
    'ist vertraulich',
    'sind vertraulich',
    'vertrauliche informationen',
    'nicht der richtige adressat',
    'sitz der gesellschaft',
    'registergericht',
    'geschaftsfuhr',
    'umwelt, bevor sie',
    'diese e-mail ausdrucken',
    "provient de l'exterieur",
    'expediteur externe',
    'sont confidentiels',
    "a l'intention exclusive",
    'recu ce message par erreur',
    "l'environnement avant d'imprimer",
    'aviso legal',
    'se origino fuera',
    'fuera de la organizacion',
    'informacion confidencial',
    'dirigidos exclusivamente',
    'medio ambiente antes de imprimir',
    'afkomstig van buiten',
    'buiten de organisatie',
    'is vertrouwelijk',
    'vertrouwelijke informatie',
    'uitsluitend bestemd',
    'aan het milieu',
    'enviado de fora',
    'fora da organizacao',
    'informacoes confidenciais',
    'nao for o destinatario',
    'meio ambiente antes de imprimir',
  ].join('|'),
);

/** Undoes what an HTML-to-text conversion leaves behind (&nbsp;, <br>), so it reads as the words it is. */
function cleanMarkup(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/<br\s?\/?>/gi, '')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&amp;/gi, '&')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"');
}

/** Our footer's unsubscribe line ("Unsubscribe: https://…/unsubscribe/…", or the label alone with the link below). */
const FOOTER_LINK = /^unsubscribe\s?:\s?(?:https?:\/\/\S+)?$|^\S*https?:\/\/\S+\/unsubscribe\/\S+$/i;
/** A postal address line: digits and commas, not a sentence. */
const ADDRESS_LINE = (line: string) => /\d/.test(line) && line.includes(',') && !/[.!?]$/.test(line) && line.length <= 160;

/**
 * Drops our own footer when a client pastes it back without quote marks: the
 * unsubscribe line, the link under it, and the postal address line above it.
 */
function dropOurFooter(lines: string[]): string[] {
  const out = [...lines];
  for (let i = out.length - 1; i >= 0; i--) {
    if (!FOOTER_LINK.test(out[i]!.trim())) continue;
    let from = i;
    if (from > 0 && ADDRESS_LINE(out[from - 1]!.trim())) from--;
    const to = /^https?:\/\/\S+$/.test(out[i + 1]?.trim() ?? '') ? i + 2 : i + 1;
    out.splice(from, to - from);
    i = from;
  }
  return out;
}

/** Drops disclaimer paragraphs (blank-line separated) and contact lines. */
function dropBoilerplate(lines: string[]): string[] {
  const folded = foldLines(lines);
  const out: string[] = [];
  let paragraph: string[] = [];
  let foldedParagraph: string[] = [];
  // A paragraph is kept up to the line where the boilerplate starts: "Please remove me." above a notice on the next line stays.
  const flush = () => {
    const at = DISCLAIMER.exec(foldedParagraph.join(' '))?.index;
    let keep = paragraph.length;
    if (at !== undefined) {
      let offset = 0;
      keep = Math.max(
        0,
        foldedParagraph.findIndex((line) => (offset += line.length + 1) > at),
      );
    }
    out.push(...paragraph.slice(0, keep));
    paragraph = [];
    foldedParagraph = [];
  };
  lines.forEach((line, i) => {
    if (folded[i] === '') {
      flush();
      out.push('');
    } else if (!CONTACT.test(folded[i]!)) {
      paragraph.push(line);
      foldedParagraph.push(folded[i]!);
    }
  });
  flush();
  return out;
}

/** A folded line without emphasis marks or a leading dash ("*Jana Novak*", "- Curtis"). */
const unmark = (folded: string) =>
  folded
    .replace(/[*_~"]/g, '')
    .replace(/^[-\s]+/, '')
    .trim();
const bare = (line: string) => unmark(fold(line));

/** The replier's name as they might sign: the full display name or its first word. */
function namesOf(fromName: string | undefined): Set<string> {
  const names = new Set<string>();
  const name = fromName ? bare(fromName).replace(/\s+/g, ' ') : '';
  if (name.length >= 2) {
    names.add(name);
    names.add(name.split(' ')[0]!);
  }
  return names;
}

/** Where the signature starts: "-- ", a device line, a sign-off line followed only by short lines, or the replier's own name on a line. */
function signatureStart(lines: string[], names: Set<string>): number {
  const folded = foldLines(lines);
  let seenText = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = unmark(folded[i]!);
    if (raw.trimEnd() === '--' || raw === '-- ' || raw.trim() === '—') return i;
    if (line.length <= 80 && DEVICE_VERB.test(line) && DEVICE.test(line)) return i;
    if (!line) continue;
    if (seenText && names.has(nameOnLine(line))) return afterSignOff(lines, i);
    if (seenText && SIGN_OFF.test(line) && onlyShortLinesAfter(lines, i)) return i;
    seenText = true;
  }
  return lines.length;
}

/** "Jörg Stein | Leitung Produktion", "Curtis,": the name part of a signature line. */
const nameOnLine = (line: string) => line.split('|')[0]!.trim().replace(/[,.]$/, '');

/** A sign-off just above the name line belongs to the signature too. */
function afterSignOff(lines: string[], i: number): number {
  let j = i - 1;
  while (j > 0 && !lines[j]!.trim()) j--;
  return j > 0 && SIGN_OFF.test(bare(lines[j]!)) ? j : i;
}

/** "Please remove me.", "Could you send the deck?": a sentence, which no signature line is. */
const isSentence = (line: string) => line.endsWith('?') || (/[.!]$/.test(line) && line.split(/\s+/).length >= 3);

/** A sign-off opens a signature only when no sentence follows it (a name, a title, a company) before a "--" line. */
function onlyShortLinesAfter(lines: string[], i: number): boolean {
  let count = 0;
  for (let j = i + 1; j < lines.length; j++) {
    const line = lines[j]!.trim();
    if (line === '--') return true;
    if (!line) continue;
    if (line.length > 60 || ++count > 8 || isSentence(line)) return false;
  }
  return true;
}

function cutSignature(lines: string[], names: Set<string>): string[] {
  return lines.slice(0, signatureStart(lines, names));
}

const tidy = (lines: string[]) =>
  lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** The reply's own words: above the quote and (for '>' quotes) below or between it, each part without signature and boilerplate. */
export function ownWordsOf(text: string, fromName?: string): string {
  const lines = cleanMarkup(text.slice(0, MAX_TEXT)).split('\n');
  const { above, below } = outsideQuote(lines);
  const names = namesOf(fromName);
  const parts = [above, below].map((part) => tidy(cutSignature(dropBoilerplate(dropOurFooter(part)), names)));
  return parts.filter(Boolean).join('\n\n');
}
