/**
 * Where the quoted original starts, in the forms mail clients write it:
 * an attribution line ("On … wrote:", "Am … schrieb …:", "Le … a écrit :",
 * "El … escribió:", "Op … schreef …:", "Em … escreveu:"), possibly wrapped
 * over two lines; an Outlook header block (From:/Sent:/To:/Subject: and the
 * German, French, Spanish, Dutch and Portuguese labels), often under a rule
 * of underscores or an "-----Original Message-----" line; or '>' lines.
 * Every regex here is anchored and bounded, so a hostile line costs linear time.
 */
import { foldLines } from './fold.ts';

/** An attribution: starts like "On …"/"Am …"/"Le …" and names the writer with a "wrote" verb before the closing colon. */
const ATTRIBUTION_OPENING =
  /^(?:on|am|le|el|em|op|il|the)\s.{0,240}(?:wrote|writes|schrieb|a ecrit|escribio|escreveu|schreef|geschreven|ha scritto)(?:\s[^:]{0,160})?\s?:$/;
/** A bare "Name <address> wrote:" line without the date in front. */
const ATTRIBUTION_BARE = /^.{0,160}\s(?:wrote|schrieb|a ecrit|escribio|escreveu|schreef|het volgende geschreven)\s?:$/;

const FROM_LABEL = /^\*?(?:from|von|de|van|da|expediteur|remitente|absender)\s?:/;
const OTHER_LABEL =
  /^\*?(?:sent|date|gesendet|datum|envoye|enviado|enviada|fecha|verzonden|verstuurd|data|to|an|a|para|aan|subject|betreff|objet|asunto|assunto|onderwerp|cc)\s?:/;
const SEPARATOR =
  /^-{2,}\s?(?:original message|ursprungliche nachricht|originalnachricht|message d'origine|message original|mensaje original|oorspronkelijk bericht|origineel bericht|mensagem original|forwarded message|weitergeleitete nachricht|message transfere|mensaje reenviado|doorgestuurd bericht|mensagem encaminhada)\s?-{2,}$/;
const RULE = /^[_=-]{10,}$/;
/** Apple Mail's forward line, in six languages: what follows is an older message. */
const FORWARDED =
  /^(?:begin forwarded message|anfang der weitergeleiteten nachricht|debut du message reexpedie|inicio del mensaje reenviado|begin doorgestuurd bericht|inicio da mensagem reencaminhada)\s?:$/;

export const isQuotedLine = (line: string) => /^[ \t]{0,3}>/.test(line);

/** True when `line` (joined with the next when the client wrapped it) is an attribution line. */
function isAttribution(folded: string[], i: number): boolean {
  const one = folded[i]!;
  if (one.length > 400) return false;
  // Every attribution ends with a colon: the cheap test first.
  if (one.endsWith(':') && (ATTRIBUTION_OPENING.test(one) || ATTRIBUTION_BARE.test(one))) return true;
  const next = folded[i + 1];
  if (next === undefined || !next.endsWith(':') || !/^(?:on|am|le|el|em|op|il)\s/.test(one)) return false;
  const two = `${one} ${next}`;
  return two.length <= 400 && (ATTRIBUTION_OPENING.test(two) || ATTRIBUTION_BARE.test(two));
}

/** An Outlook-style header: a From label followed within a few lines by at least one other header label. */
function isHeaderBlock(folded: string[], i: number): boolean {
  if (!FROM_LABEL.test(folded[i]!)) return false;
  for (let j = i + 1; j < Math.min(folded.length, i + 6); j++) if (OTHER_LABEL.test(folded[j]!)) return true;
  return false;
}

export type QuoteKind = 'none' | 'prefixed' | 'block';

/** The index of the first line of the quote and whether the quote's lines carry '>' (so own words may follow below or between them). */
export function findQuote(lines: string[], folded: string[]): { start: number; kind: QuoteKind } {
  for (let i = 0; i < lines.length; i++) {
    if (isQuotedLine(lines[i]!)) return { start: i, kind: 'prefixed' };
    const line = folded[i]!;
    if (SEPARATOR.test(line) || FORWARDED.test(line)) return { start: i, kind: 'block' };
    if (RULE.test(line) && i + 1 < lines.length && isHeaderBlock(folded, i + 1)) return { start: i, kind: 'block' };
    if (isHeaderBlock(folded, i)) return { start: i, kind: 'block' };
    if (isAttribution(folded, i)) return { start: i, kind: followedByPrefixed(lines, i) ? 'prefixed' : 'block' };
  }
  return { start: lines.length, kind: 'none' };
}

/** After an attribution, do the quoted lines carry '>'? Only then can text below the quote be the reply's own (bottom-posting, inline answers). */
function followedByPrefixed(lines: string[], i: number): boolean {
  for (let j = i + 1; j < Math.min(lines.length, i + 5); j++) {
    if (isQuotedLine(lines[j]!)) return true;
  }
  return false;
}

/** The lines that are not the quote: those above it and, for a '>' quote, the unprefixed lines below and between (minus further attributions). */
export function outsideQuote(lines: string[]): { above: string[]; below: string[] } {
  const folded = foldLines(lines);
  const { start, kind } = findQuote(lines, folded);
  const above = lines.slice(0, start);
  if (kind !== 'prefixed') return { above, below: [] };
  const below: string[] = [];
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    if (isQuotedLine(line)) continue;
    // A second quote inside the first (an older message, a forwarded block) ends the reply's own part.
    if (isHeaderBlock(folded, i) || SEPARATOR.test(folded[i]!)) break;
    if (isAttribution(folded, i)) {
      if (!/[:]\s*$/.test(line)) i++;
      continue;
    }
    below.push(line);
  }
  return { above, below };
}
