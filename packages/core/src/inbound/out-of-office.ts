/**
 * Out-of-office answers recognised from their words, for the vacation
 * programs and mail clients that write no `Auto-Submitted` or `X-Autoreply`
 * (docs/inbound.md, "Auto-replies"). English, German, French, Spanish, Dutch,
 * Portuguese and Italian, the languages the reply rules read.
 *
 * Reading an answer as an auto-reply lets the sequence go on, and a
 * follow-up sent to a person who answered is the worst mistake the engine can
 * make; so the words must be only about the absence. Each clause of the
 * person's own words (before the quoted original and the signature) is
 * either about the absence (away, back on, contact a colleague, thanks for
 * your message) or a greeting, and one clause that is neither ("yes, send the
 * deck") keeps the message a reply.
 *
 * Every pattern is a plain alternation tried on one short clause at a time:
 * no pattern can retry from every position of a long run.
 */

/** `\b` that knows accented letters (JavaScript's `\b` takes "é" for a non-word character, even with the u flag). */
const unicodeWords = (source: string) =>
  source.replaceAll(String.raw`\b`, String.raw`(?:(?<=[\p{L}\p{N}])(?![\p{L}\p{N}])|(?<![\p{L}\p{N}])(?=[\p{L}\p{N}]))`);

/** Words that say the writer is away: at least one must be there. */
const ABSENT = new RegExp(
  unicodeWords(
    [
      // English
      String.raw`out of (the )?office|\booo\b|\bon (annual |parental |maternity |paternity |sick |medical |study )?(leave|vacation|holidays?)\b|\b(away|absent) from (the |my )?(office|desk|e-?mail)|\b(away|out|off|travell?ing) (until|till|through|thru|from)\b|\b(i am|i'm|i will be|i'll be) (currently )?(away|out|absent|off|travell?ing|on the road)\b|limited (access to|internet|e-?mail)|(no|without) access to (my )?e-?mail|\bannual leave\b|\bback in the office\b`,
      // German
      String.raw`nicht im (büro|buero|haus|dienst)|au(ß|ss)er haus|\babwesend\b|abwesenheit|\b(im|in) urlaub\b|urlaubsbedingt|nicht erreichbar|eingeschränkt erreichbar|wieder im (büro|buero|haus)|bin (ab|bis) `,
      // French
      String.raw`absente? (du bureau|jusqu)|\b(je suis|actuellement|suis) absente?\b|\ben (congés?|vacances|déplacement|deplacement)\b|hors du bureau|je serai de retour|de retour (le|au bureau|lundi|mardi|mercredi|jeudi|vendredi)|accès limité`,
      // Spanish
      String.raw`fuera de (la )?oficina|\b(estoy|me encuentro|estaré) (de vacaciones|ausente|fuera)|\bde vacaciones\b|estaré de vuelta|\bvolveré\b|\bregresaré\b|acceso limitado`,
      // Dutch
      String.raw`niet (op kantoor|aanwezig|bereikbaar)|\bafwezig\b|\b(met|op) vakantie\b|ben (weer )?terug|weer aanwezig|beperkt bereikbaar`,
      // Portuguese
      String.raw`fora do escrit[oó]rio|\bde f[eé]rias\b|\b(estou|estarei) (ausente|fora)\b|estarei de volta|\bregressarei\b|\bretornarei\b|acesso limitado`,
      // Italian
      String.raw`fuori (ufficio|sede)|\bin ferie\b|\b(sono|sarò|saro) (assente|fuori)\b|sarò di nuovo|\brientrerò\b|accesso limitato`,
    ].join('|'),
  ),
  'iu',
);

/** Words a clause about the absence is made of: the return, who to contact instead, the message waiting, thanks. */
const ABOUT_ABSENCE = new RegExp(
  [
    String.raw`urgent|contact|colleague|respond|reply|answer|return|back|until|till|thank|e-?mail|message|office|phone|mobile|delay|forward|as soon as|absence|away|leave|vacation|holiday|access|regards|travel|reachable|available|meantime|matters`,
    String.raw`dringend|kontakt|kolleg|antwort|zurück|bis |danke|nachricht|büro|buero|telefon|handy|verzögerung|weitergeleitet|schnellstmöglich|baldmöglichst|abwesen|urlaub|erreichbar|vertretung|grüße|gruesse|anliegen`,
    String.raw`urgen|contacte|collègue|répondr|retour|jusqu|merci|courriel|bureau|téléphone|portable|délai|transmis|dès que possible|absen|congé|vacances|cordialement|demande`,
    String.raw`urgente|contact|compañer|respond|regres|vuelta|hasta|gracias|correo|mensaje|oficina|teléfono|móvil|retraso|reenviad|lo antes posible|ausen|vacaciones|saludos|asunto`,
    String.raw`spoed|contact|collega|beantwoord|terug|tot en met| tot |bedankt|dank|bericht|kantoor|telefoon|mobiel|vertraging|doorgestuurd|zo snel mogelijk|afwezig|vakantie|groet|bereikbaar`,
    String.raw`urgên|urgenc|urgente|contat|colega|respond|volta|até|obrigad|mensagem|escritório|telefone|celular|atraso|encaminhad|assim que possível|ausên|férias|cumprimentos|assunto`,
    String.raw`urgen|contatt|collega|rispond|rientro|fino al|grazie|messaggio|ufficio|telefono|cellulare|ritardo|inoltrat|prima possibile|assen|ferie|saluti`,
  ].join('|'),
  'iu',
);

/** Words of an answer to the email itself: any one of them, in a clause not about the absence, keeps it a reply. */
const ANSWER = new RegExp(
  unicodeWords(
    String.raw`\b(yes|yeah|yep|sure|okay|sounds good|interested|let's|call me|send (me|it|the|over|us)|gerne|klingt gut|oui|volontiers|d'accord|sí|claro|me interesa|graag|prima|com certeza|va bene|no thanks|not interested|non merci|no gracias)\b`,
  ),
  'iu',
);

/** Greetings and sign-offs, which say nothing either way. */
const GREETING =
  /^(hi|hello|hey|dear|good (morning|afternoon|day)|hallo|guten tag|sehr geehrte|liebe|bonjour|salut|hola|buenos días|estimad|beste|geachte|olá|ola|bom dia|prezad|ciao|buongiorno|gentile)\b/i;
const SIGN_OFF =
  /^(best|kind|warm|many thanks|thanks|thank you|cheers|sincerely|regards|mit freundlichen grüßen|mit freundlichen gruessen|viele grüße|beste grüße|freundliche grüße|lg|mfg|cordialement|bien à vous|bien cordialement|saludos|un saludo|atentamente|met vriendelijke groet|vriendelijke groeten|groeten|groet|atenciosamente|cumprimentos|abraços|cordiali saluti|distinti saluti|saluti)\b[^\n]{0,30}$/i;
/** Where the quoted original starts, in the forms clients write in these languages. */
const QUOTE_START =
  /^\s*>|^-{2,}\s*(original message|ursprüngliche nachricht|message d'origine|mensaje original|oorspronkelijk bericht|mensagem original|messaggio originale)|^_{5,}|^(from|von|de|van|da): |^(on|am|le|el|op|em|il) [^\n]{4,200}(wrote|schrieb|a écrit|escribió|schreef|escreveu|ha scritto):\s*$/i;

const OWN_WORDS_MAX = 4000;

/** The person's own words: the text before the quoted original and the signature. */
function ownWords(text: string): string[] {
  const lines: string[] = [];
  for (const line of text.slice(0, OWN_WORDS_MAX).split(/\r?\n/)) {
    if (QUOTE_START.test(line) || /^--\s*$/.test(line)) break;
    const t = line.trim();
    if (SIGN_OFF.test(t)) break;
    lines.push(t);
  }
  return lines;
}

/**
 * True when the text is an out-of-office answer and nothing else: the
 * writer's own words say they are away and hold no answer to the email.
 */
export function isOutOfOfficeText(text: string): boolean {
  const own = ownWords(text);
  const words = own.join('\n');
  if (!ABSENT.test(words)) return false;
  // Clauses: sentences, and the parts of a sentence a comma, a dash or a "but" joins ("out till Monday, yes send the deck").
  for (const clause of words.split(/[.!?;,:\n]|\s[-–—]\s|\s(?:but|aber|mais|pero|maar|mas|ma)\s/i)) {
    const c = clause.trim();
    if (!c || GREETING.test(c)) continue;
    // A clause of addresses, numbers or a link is a way to reach someone, not an answer.
    if (/@|https?:|^[+\d\s()/-]+$/.test(c)) continue;
    const about = ABSENT.test(c) || ABOUT_ABSENCE.test(c);
    if (ANSWER.test(c) && !ABSENT.test(c)) return false;
    if (!about && c.split(/\s+/).length >= 3) return false;
  }
  return true;
}
