/**
 * The original a notice returns: from a MIME part's header block, or quoted
 * inline in the notice's text, as qmail, Exim, Yahoo, Google Groups, DragonFly
 * and older Sendmail do. Every line is looked at once, with anchored patterns
 * on its first characters only.
 */
import type { ReturnedOriginal } from '../../ports/mail-reader.ts';
import { addressesIn, headerEnd, headerMapOf, idsOf } from './text.ts';

/** Headers a complaint or a notice names a recipient in (Microsoft JMRP's X-HmXmrOriginalRecipient), kept for the rules. */
const KEPT = ['x-hmxmroriginalrecipient', 'x-original-to', 'delivered-to'];

/** The headers a returned original is known by, from the text that starts with its header block. */
export function originalOf(text: string): ReturnedOriginal {
  const { end } = headerEnd(text);
  const h = headerMapOf(text.slice(0, Math.min(end, 64 * 1024)));
  const messageId = idsOf(h['message-id'], 1)[0];
  const from = addressesIn(h.from, 1)[0];
  const headers: Record<string, string> = {};
  for (const name of KEPT) if (h[name]) headers[name] = h[name]!.slice(0, 400);
  return {
    ...(messageId ? { messageId } : {}),
    ...(from ? { from } : {}),
    to: addressesIn(h.to),
    ...(h.subject ? { subject: h.subject.slice(0, 500) } : {}),
    headers,
  };
}

/**
 * Lines that introduce the original in a notice's text, in the wording of
 * the mail systems that write one (qmail and Yahoo: "--- Below this line is a
 * copy of the message."; Exim: "------ This is a copy of the message,
 * including all the headers. ------"; Google Groups: "----- Original message
 * -----"; DragonFly: "Message headers follow."; Sendmail: "----- Original
 * message follows -----"; mail.ru, Domino, Japanese carriers...).
 */
const MARKERS = [
  /^[-=_ ]*below this line is a copy of the message/i,
  /^[-=_ ]*this is a copy of (the|your) message/i,
  // A whole line, so Sendmail's "The original message was received at ..." is not taken for one.
  /^[-=_ ]*(the )?(original|returned|unsent|undelivered|undeliverable|rejected) (message|mail|e-?mail)( follows| text| headers?| is below| below)?[:.]?[-=_ ]*$/i,
  /^[-=_ ]*(the )?(original )?message('s)? (headers?|header|text|body|content) (follows?|is following|are following)/i,
  /^[-=_ ]*(the )?headers? of (the )?(original|your) (message|mail)/i,
  /^[-=_ ]*(original )?message headers? follows?/i,
  /^[-=_ ]*(original|returned) (message )?headers?:?\s*[-=_ ]*$/i,
  /^[-=_ ]*(here is|here are) (a copy of )?(the|your) (original )?(message|headers)/i,
  /^[-=_ ]*content-type: *(message\/rfc822|text\/rfc822-headers)/i,
  /^[-=_ ]*forwarded message/i,
  // Japanese carriers' gateways: "------ 元のメッセージ ------" (the original message), "送信されたメール" (the mail sent).
  /^[-=_ ]*(元の(メッセージ|メール)|送信(された|した)(メッセージ|メール)|原文|オリジナル(メッセージ|メール))[^\n]{0,12}[-=_ ]*$/,
];
const HEADER_LINE =
  /^(return-path|received|from|to|cc|subject|date|message-id|mime-version|content-type|dkim-signature|authentication-results|reply-to|sender|x-[a-z0-9-]+):/i;
const MAX_LINES = 4000;

/** Where the original starts in a notice's text (an offset), and its headers; undefined when the text quotes none. */
export function inlineOriginalOf(text: string): { original: ReturnedOriginal; at: number } | undefined {
  const lines = text.split('\n', MAX_LINES);
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i]!.trim().slice(0, 160);
    if (!MARKERS.some((re) => re.test(head))) continue;
    // The quoted header block: its first header line, a few lines after the marker at most.
    for (let first = i + (/content-type:/i.test(head) ? 0 : 1); first < lines.length && first <= i + 40; first++) {
      if (HEADER_LINE.test(lines[first]!.slice(0, 80))) {
        // A content-type line opens a part: its own headers come first, then the original's.
        const block = lines.slice(first, first + 600).join('\n');
        const part = /^content-type:/i.test(lines[first]!) ? originalAfterPartHeaders(block) : originalOf(block);
        return { original: part, at: starts[i]! };
      }
    }
    return { original: { to: [], headers: {} }, at: starts[i]! };
  }
  // No marker: a header block quoted without one. Its Message-ID line must sit among other header lines.
  for (let i = 1; i < lines.length; i++) {
    if (!/^message-id:/i.test(lines[i]!.slice(0, 12))) continue;
    const prev = lines[i - 1]!;
    const next = lines[i + 1] ?? '';
    // Zoho writes the original's headers after an empty line, Message-ID first.
    if (!HEADER_LINE.test(prev.slice(0, 80)) && !/^[ \t]\S/.test(prev) && !HEADER_LINE.test(next.slice(0, 80))) continue;
    let first = i;
    while (first > 0 && i - first < 80 && (HEADER_LINE.test(lines[first - 1]!.slice(0, 80)) || /^[ \t]\S/.test(lines[first - 1]!))) first--;
    return { original: originalOf(lines.slice(first, i + 200).join('\n')), at: starts[first]! };
  }
  return undefined;
}

/** A message/rfc822 part written into the text: its part headers, an empty line, then the original's headers. */
function originalAfterPartHeaders(block: string): ReturnedOriginal {
  const own = originalOf(block);
  if (own.messageId) return own;
  const { bodyStart } = headerEnd(block);
  return originalOf(block.slice(bodyStart).replace(/^\s*\n/, ''));
}
