/**
 * A timing objection that leaves the door open, in six languages. Strong:
 * an invitation to come back later or at a named time ("reach out in July",
 * "melden Sie sich im Oktober", "recontactez-moi dans trois mois",
 * "escríbeme después del verano", "neem in Q4 weer contact op", "me procura
 * mais pra frente"). Weak: "not right now", "momentan nicht", "pas pour le
 * moment", which a decline may also say.
 */
import { anyOf } from './fold.ts';
import { affirmed, negatedSomewhere } from './negation.ts';

const LATER = String.raw`(?:in(?! with| on| touch)|after|next|around|later|when|once|closer|toward|towards|early|late|mid|at the (?:start|end|beginning)|by|from|before|sometime|some time)`;
const MONTH = String.raw`(?:january|february|march|april|may|june|july|august|september|october|november|december|q[1-4]|the (?:summer|autumn|fall|spring|winter|new year)|next (?:year|quarter|month))`;

const STRONG = anyOf(
  [
    // English
    String.raw`(?:reach (?:back )?out|reach back|check back|circle back|come back|get back|ping (?:me|us)|try (?:me|us)|contact (?:me|us)|touch base|follow up|hit (?:me|us) up)(?: again)?(?: with (?:me|us))?(?: to (?:me|us))? ${LATER}`,
    String.raw`(?:revisit|reconnect|resume|pick (?:this|it) (?:up|back up)|look at (?:this|it) again) (?:\w+ )?${LATER}`,
    String.raw`(?:try|ask|write|email|call|contact|ping|reach out|check) (?:me |us )?again ${LATER}|not (?:before|until|till) (?:next|the (?:end|start|new)|${MONTH})`,
    String.raw`hear from you (?:again )?(?:in|after|around|later|next|closer|when|once)`,
    String.raw`(?:open to|happy to|glad to|willing to|keen to|up for) [^.?!]{0,40}(?:in|after|around) ${MONTH}`,
    String.raw`(?:reach out|check back|circle back|follow up|get in touch|try (?:me|us|again)|come back) (?:to (?:me|us) )?(?:then|at that (?:time|point))|(?:but )?maybe next(?: (?:year|quarter|month|time|one))?`,
    String.raw`maybe (?:later|next year|next quarter|for the next one|in the future|down the (?:road|line)|another time)`,
    // German
    String.raw`(?:melden|kontaktieren|schreiben) sie (?:sich|mich|uns) (?:bitte |gerne |gern |doch ){0,2}(?:\w+ ){0,3}(?:wieder|nochmal|noch einmal|erneut|spater|im|in|nach|ende|anfang|mitte)`,
    String.raw`(?:spater|danach) (?:gern|gerne|wieder|nochmal|noch einmal|erneut)`,
    String.raw`zu einem spateren zeitpunkt|(?:im )?(?:nachsten|kommenden) (?:jahr|quartal|halbjahr)`,
    // French
    String.raw`(?:recontactez|recontacter|relancez|relancer|revenez vers|reprenez contact|reprendre contact)(?:-| )?(?:moi|nous)? (?:\w+ ){0,2}(?:dans|en|a|apres|l'annee|le mois|plus tard|au|d'ici|vers|debut|fin|courant|quand|lorsque|une fois)`,
    String.raw`(?:je|nous) (?:reviendrai|reviendrons|reprendrai|reprendrons) (?:contact|vers vous)`,
    String.raw`plus tard|a la rentree|l'annee prochaine|le trimestre prochain|apres l'ete`,
    // Spanish
    String.raw`(?:escribeme|escribame|escribenos|contactame|contacteme|contactanos|vuelve|vuelva|volvamos|retomemos|escribid|contactad) (?:a escribir(?:me)? |a contactar(?:me)? )?(?:despues|en|mas adelante|dentro|el proximo|el ano|a partir|hacia|a finales|a principios|tras)`,
    String.raw`mas adelante|el ano que viene|el proximo (?:ano|trimestre|semestre)|despues del verano`,
    // Dutch
    String.raw`(?:neem|neemt) (?:\w+ ){0,5}(?:weer|opnieuw|nog eens|later) contact op`,
    String.raw`(?:later|na de zomer|volgend jaar|volgend kwartaal|na de vakantie) (?:\w+ ){0,3}(?:terug|contact|opnieuw|weer)`,
    String.raw`(?:kom|komt u|kom maar) (?:\w+ ){0,2}later (?:terug|erop terug)`,
    // Portuguese
    String.raw`(?:me procura|me procure|me procurem|entre em contato|volte a falar|retome|volta a falar) (?:de novo |novamente )?(?:mais (?:pra|para) frente|depois|em|no proximo|na proxima|daqui|apos|mais tarde|quando)`,
    String.raw`(?:entre em contato|fale comigo|me procure|volte a falar) (?:\w+ ){0,2}(?:no|na|a partir d[oa]) (?:segundo|proximo|proxima|terceiro|quarto|inicio|final|fim)`,
    String.raw`(?:no )?ano que vem|(?:no )?proximo ano|(?:im )?nachsten jahr wieder|(?:l'an|l'annee) prochain`,
    String.raw`mais (?:pra|para) frente|no proximo (?:ano|trimestre|semestre)|daqui a (?:\w+ )?(?:semanas|meses)`,
  ],
  'g',
);

/** A no qualified with a time ("not interested at the moment", "pas intéressés pour le moment"): counts only right after a negation. */
const QUALIFIER = anyOf(
  [
    String.raw`for now|currently|ahora mismo|actuellement|aktuell|atualmente|op het moment|at the moment|at this (?:time|point|stage)|right now|this (?:quarter|year)|for the time being|pour le moment|pour l'instant|en ce moment|im moment|derzeit|zurzeit|momentan|vorerst|por ahora|por el momento|de momento|en este momento|op dit moment|momenteel|voorlopig|no momento|neste momento|por enquanto|por ora`,
  ],
  'g',
);

/** Saying "not now" outright. */
const WEAK = anyOf(
  [
    String.raw`not (?:right )?now|not at (?:the|this) (?:moment|time|stage|point)|not (?:a good|the right|great|the best) (?:time|moment)|nothing (?:\w+ ){0,2}(?:right now|at the moment|for now|currently)`,
    String.raw`(?:too|a bit|bit|little) (?:early|late|soon) (?:for|in)`,
    String.raw`(?:momentan|derzeit|aktuell|im moment|zurzeit|gerade|vorerst|zur zeit|jetzt) (?:leider )?(?:nicht|kein|keine)`,
    String.raw`pas (?:pour le moment|maintenant|pour l'instant|en ce moment|tout de suite|le bon moment|cette annee)|ce n'est pas le (?:bon )?moment`,
    String.raw`(?:ahora|ahora mismo|de momento|por ahora|en este momento|por el momento) no|no es (?:buen|el) momento`,
    String.raw`(?:even|nu|op dit moment|momenteel|voorlopig|op het moment) (?:even )?(?:niet|geen)|niet (?:nu|op dit moment)|niet het juiste moment`,
    String.raw`(?:agora|no momento|neste momento|por enquanto|por ora) (?:nao|ainda nao)|nao e (?:um bom|o melhor|o) momento`,
  ],
  'g',
);

/** Busy, frozen, in the middle of something: a reason for later, which an interested reply may also give. */
const CONTEXT = anyOf(
  [
    String.raw`(?:bad|busy|hectic|crazy|tough|difficult) (?:time|moment|period|season|quarter)`,
    String.raw`no budget|(?:budget|spend|spending|hiring|headcount)(?: is| has been| are|'s)? (?:already )?(?:frozen|committed|allocated|spent|locked|on hold|freeze)`,
    String.raw`freezing|froze|on hold|slammed|swamped|snowed under|barely have time|too busy|in the middle of|not on the roadmap`,
    String.raw`(?:komplett |voll |sehr )?ausgelastet|keine (?:zeit|kapazitat\w*)|(?:budget|etat) (?:ist )?(?:bereits )?(?:verplant|ausgeschopft|aufgebraucht)`,
    String.raw`geles?|gel des|debordes?|pas le temps`,
    String.raw`en plena|muy liados|a tope|hasta arriba|saturados`,
    String.raw`geen tijd|druk bezig|volle agenda`,
    String.raw`(?:estamos|estou) (?:trocando|migrando|no meio|em meio)`,
  ],
  'g',
);

export interface TimingSignal {
  /** Come back later, or at a time it names. */
  strong: boolean;
  /** "Not now", said outright. */
  weak: boolean;
  /** A reason for later (busy, frozen), without saying not now. */
  context: boolean;
}

export function timingSignals(folded: string): TimingSignal {
  return {
    strong: affirmed(folded, STRONG),
    weak: affirmed(folded, WEAK) || negatedSomewhere(folded, QUALIFIER),
    context: affirmed(folded, CONTEXT),
  };
}
