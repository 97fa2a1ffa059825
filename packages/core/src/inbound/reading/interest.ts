/**
 * Clear positive intent, in six languages: asks for a call, demo or
 * meeting, proposes or accepts a time, or asks to be sent the material in
 * order to evaluate it ("send it over", "schicken Sie mir die Konditionen",
 * "envoyez-moi une invitation", "¿puedes el jueves?", "stuur maar een paar
 * data", "bora conversar"). Every match must be affirmed: "not interested",
 * "no me interesa" and "don't send me anything" are not interest.
 */
import { anyOf } from './fold.ts';
import { affirmed } from './negation.ts';
import { statements } from './decline.ts';

const DAY = String.raw`(?:monday|tuesday|wednesday|thursday|friday|tomorrow|montag|dienstag|mittwoch|donnerstag|freitag|morgen|lundi|mardi|mercredi|jeudi|vendredi|demain|lunes|martes|miercoles|jueves|viernes|manana|maandag|dinsdag|woensdag|donderdag|vrijdag|segunda|terca|quarta|quinta|sexta|amanha)`;

const INTEREST = anyOf(
  [
    // English
    String.raw`interested|not uninterested|(?:sounds|looks|seems) (?:good|great|promising|interesting|useful|relevant|intriguing)|(?:good|great|perfect) timing|timing(?:'s| is) (?:actually )?(?:good|great|perfect|right)|your timing is`,
    String.raw`^(?:yes|yep|yeah|sure|absolutely|definitely|ok|okay|go on then|count me in)\b|yes,? please|go ahead`,
    String.raw`(?:i'd|i would|we'd|we would|i'm|we're|i am|we are) (?:love|like|keen|happy|glad|open|up for|interested) (?:to )?(?:see|learn|hear|talk|chat|meet|connect|try|get|hop|jump|set up|book|schedule|take a look|explore|discuss|a call|a demo|a chat|the|more)`,
    String.raw`(?:would|'d) welcome (?:a|the|your)|(?:let's|lets) (?:talk|chat|meet|connect|do it|set|book|schedule|find|jump|hop|go)`,
    String.raw`(?:could|can|would|will) you (?:please )?(?:send|share|email) (?:me|us|it|over|the|a|some)`,
    String.raw`when (?:works|suits|is good|would work) for you|(?:we|i) (?:have|do have) (?:a |an )?(?:need|use) for (?:this|it|that)|your availability|(?:when|what time) (?:are|would) you (?:be )?(?:free|available)|(?:i'd|i would|we'd|we would) like (?:a|to get a|to see a|to request a|to schedule a|to book a) (?:quote|proposal|demo|call|meeting|trial|price|walkthrough)`,
    String.raw`(?:keen|eager|excited) to (?:see|learn|hear|talk|chat|meet|try|get|explore|discuss)|(?:see|get|book|schedule|arrange) a demo`,
    String.raw`(?:join|attend|be on|hop on|jump on) (?:the|a|our|your) (?:call|meeting|demo)`,
    String.raw`(?:propose|suggest|send|offer) (?:me |us )?(?:a few|some|two|three|a couple of|your) (?:\w+ )?(?:times|slots|dates)|(?:gerne|gern) (?:\w+ ){0,3}(?:schicken|senden|zusenden|zukommen lassen)`,
    String.raw`(?:book|schedule|set up|arrange|grab|pick|find) (?:a |any |some |the )?(?:call|meeting|time|demo|slot|chat|session|walkthrough|trial|pilot)`,
    String.raw`(?:can|could|shall) we (?:talk|chat|meet|speak|do|set|schedule|book|jump|hop)|(?:could|can) you do|(?:does|would|how about|what about|are you (?:free|available)) ${DAY}`,
    String.raw`(?:works|work|suits|is good|is fine) (?:for me|best|for us)|(?:i'm|i am|we're) (?:free|available|around) (?:on|at|this|next|${DAY})`,
    String.raw`(?:call|ring|phone) me|calendly|cal\.com|https?://cal\.|(?:open to|up for) (?:a|the|an) (?:call|chat|demo|conversation|meeting|intro|trial|pilot)`,
    String.raw`${DAY} (?:at|after|before|morning|afternoon|or|oder|ou|o|of|ab|um|a las|as|om|na|nach|vor|vormittag|nachmittag|matin|apres-midi|en fin|prochain|que vem|a tarde|de manha|por la|en la|\d)|(?:montag|dienstag|mittwoch|donnerstag|freitag)(?:vormittag|nachmittag|morgen|abend)`,
    // German
    String.raw`interessant|interessiert|nicht uninteressant|klingt (?:gut|interessant|spannend)|(?:habe|haben) (?:grosses |durchaus )?interesse`,
    String.raw`(?:schicken|senden|ubersenden|mailen) sie (?:mir|uns)|rufen sie (?:mich|uns) (?:\w+ ){0,3}an|lassen sie uns|(?:termin|vorfuhrung|demo|besichtigung|gesprach|telefonat|call) (?:ware|ist|klingt) (?:gut|interessant|willkommen|sinnvoll|super|prima)|einladung`,
    String.raw`(?:konnen|wollen|sollen|konnten) wir (?:\w+ ){0,4}(?:telefonieren|sprechen|treffen|reden|einen termin|ein gesprach)|(?:konnen|konnten) sie mir (?:\w+ ){0,3}(?:schicken|senden|zusenden)`,
    String.raw`wann (?:passt|geht) es (?:ihnen|dir|euch)|wann haben sie zeit|^(?:ja|gerne|gern)[,.!]`,
    // French
    String.raw`interess(?:e|ee|es|ees|ant|ante)|(?:ca|cela) (?:m'|nous )interesse|(?:appelez|contactez|envoyez|ecrivez)(?:-| )(?:moi|nous)|je suis disponible|avec plaisir|volontiers|^oui\b|(?:bonne|excellente) idee|rendez-vous|(?:on peut|nous pouvons|pouvons-nous) (?:en )?(?:parler|echanger|se parler|caler)`,
    String.raw`(?:pouvez-vous|pourriez-vous) m'envoyer|(?:pouvons-nous|peut-on|on pourrait|pourrions-nous) (?:\w+ ){0,3}(?:parler|echanger|appeler|organiser|caler|prevoir)`,
    String.raw`quand (?:etes-vous|seriez-vous|es-tu) disponible|quelles sont vos disponibilites`,
    // Spanish
    String.raw`(?:me|nos) interesa|interesad[oa]s?|^(?:si|claro|vale|perfecto)[,.!]|^(?:claro|vale|perfecto)\b|hablemos|(?:podemos|puedes|puede|le parece|te parece|te va bien) (?:\w+ ){0,4}(?:${DAY}|semana|hablar|llamar|quedar|reunir)|(?:enviame|envieme|mandame|mandeme|envianos|mandanos)|(?:buena|gran) idea|no es mala idea|(?:me|nos) encantaria|ver la demo`,
    String.raw`(?:podemos|podriamos) (?:\w+ ){0,3}(?:agendar|hablar|tener una|organizar|quedar|reunirnos|llamarnos)|(?:puede|puedes|podria|podrias) (?:enviarme|mandarme|llamarme)`,
    String.raw`cuando (?:te|le|os) (?:viene|va) bien|que disponibilidad tiene`,
    // Dutch
    String.raw`(?:goed|prima|leuk|interessant) (?:idee|plan)|geinteresseerd|stuur (?:maar|me|mij|ons)|(?:bel|mail) (?:me|mij) (?:maar|gerust)|(?:bel|mail) (?:me|mij) (?:maar |gerust )?(?:morgen|vandaag|volgende week|om|${DAY})|plan (?:maar|een)|lijkt (?:me|ons) (?:goed|interessant|leuk)|afspraak`,
    String.raw`(?:kunnen|zullen) we (?:\w+ ){0,4}(?:bellen|afspreken|praten|spreken|een afspraak)|(?:kunt u|kun je) (?:me|mij) (?:\w+ ){0,2}(?:sturen|mailen|bellen)`,
    String.raw`wanneer (?:past|schikt|kan) het (?:u|jou|jullie)`,
    // Portuguese
    String.raw`(?:tenho|temos) interesse|interessad[oa]s?|(?:bora|vamos) (?:conversar|marcar|falar|agendar)|pode ser(?! que)|(?:me )?(?:envie|mande|manda|envia) (?:a|o|as|os|mais|uma|um)|^sim\b|(?:podemos|vamos) (?:conversar|falar|marcar)|(?:boa|otima) ideia|me liga|quando (?:voce|vc) (?:pode|tem disponibilidade)|qual (?:a )?sua disponibilidade|(?:pode|poderia) (?:me )?(?:enviar|mandar|ligar)|(?:podemos|vamos) (?:\w+ ){0,3}(?:agendar|marcar)`,
  ],
  'g',
);

/**
 * "Send it over", "send pricing": a request only when said, not asked ("do you send it out?"), and
 * only without a subject before the verb ("why did you send me this", "I'll send the drawing").
 */
const SEND = anyOf(
  [
    String.raw`(?<!(?:you|why|did|they|who|to|i|we|i'll|we'll|i will|we will) )(?:send|share|forward|email) (?:it|me|us|over|the|your|a|some|pricing|prices|details|info|information|more|that|them|those)(?: over)?`,
  ],
  'g',
);

export function showsInterest(folded: string): boolean {
  return affirmed(folded, INTEREST) || affirmed(statements(folded), SEND);
}
