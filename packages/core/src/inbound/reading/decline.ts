/**
 * A decline without a removal request, in six languages: "not interested",
 * "no thanks", "we'll pass", "already have a provider", "kein Bedarf",
 * "non merci", "no nos interesa", "geen interesse", "não temos interesse".
 * Read only from sentences that are not questions: "Do you do anodizing
 * in-house?" asks, it does not decline.
 */
import { anyOf } from './fold.ts';
import { affirmed } from './negation.ts';

const CLEAR = anyOf(
  [
    // English
    String.raw`^(?:no|nope|nah|nein|non|nee|nao)[.!]{0,3}$|not (?:really |at all )?interested|no interest|(?:no|nope),? thanks?(?: you)?|no thank you|thanks,? but no|(?:we'll|we will|i'll|i will|going to|gonna|we're going to) pass|^pass\W*$|it's a no|(?:we're|we are|i'm|i am) declining|(?:have to|must|will) decline`,
    String.raw`(?:don't|do not) think (?:this|it|that|we) (?:is|would be|will be|are|need) (?:a fit|for us|relevant|right for us|something|a match|interested)`,
    String.raw`(?:not|isn't|is not|n't) (?:really |quite )?(?:for us|a fit|a good fit|a match|relevant|a priority|something we need|needed|necessary|what we need)`,
    String.raw`not something (?:we|i)(?:'re| are| am)? (?:looking|interested|considering|pursuing|need)|(?:hard|easy) pass`,
    String.raw`not (?:looking|in the market|switching|planning|considering|adding|going to switch|going to change|changing|buying)`,
    String.raw`(?:zero|no real|little) need|no (?:need|use|budget) for|(?:don't|do not|doesn't|won't) need|no need`,
    String.raw`(?:we're|we are|we're all|all|i'm|i am) (?:set|good|covered|sorted|fine)(?: (?:with|on|for|here|thanks|thank you)|[.,!]|$)`,
    String.raw`(?:happy|satisfied|content|pleased) with (?:our|the|them|him|her|what we|how we|it)`,
    String.raw`already (?:have|has|use|using|work with|working with|signed|got|partner|in place|covered|handle|handled|do|did|run|own)|(?:signed|renewed|went|go|stay|staying|sticking) with (?:another|a different|our current|our existing|an?)`,
    String.raw`in-house|in house|under control|taken care of|(?:have|got) (?:it|this|that) covered|(?:is|are) (?:settled|sorted|covered)`,
    String.raw`(?:only|exclusively) (?:work|deal) with`,
    // German
    String.raw`(?:kein|keinen) (?:bedarf|interesse)|nicht interessiert|(?:kein|nicht) (?:thema|relevant)|nein,? danke|(?:danke|vielen dank),? (?:aber|jedoch) (?:nein|kein)`,
    String.raw`(?:sind|bin) (?:\w+ ){0,5}(?:zufrieden|gut versorgt|versorgt|gut aufgestellt|happy)`,
    String.raw`(?:haben|nutzen|arbeiten) (?:bereits|schon)|(?:ein|eine|einen|unser|unsere) eigene[snrm]?|(?:haben|nutzen) (?:das|dies|so etwas|sowas|es|dafur) (?:bereits|schon)|intern (?:gelost|geregelt|abgedeckt)|brauchen (?:wir )?(?:so etwas |das |sowas )?(?:nicht|kein)|kommt (?:fur uns )?nicht in frage|passt (?:leider )?nicht|verzichten`,
    // French
    String.raw`pas interess\w*|pas de besoin|(?:ca|cela) ne (?:nous|m') interesse pas|non,? merci|merci,? mais non|declin\w*|sans (?:facon|suite)`,
    String.raw`(?:nous avons|on a|j'ai|nous disposons) deja|(?:travaillons|travaille) deja|deja (?:equipes?|un prestataire|un fournisseur)`,
    String.raw`pas (?:un sujet|besoin|pour nous|pertinent|d'actualite|notre priorite)|(?:n'en|n') (?:avons|ai) pas besoin|(?:ne|n') (?:cherchons|recherchons) pas|(?:satisfaits?|contents?) (?:de|avec) (?:notre|nos)|nous allons passer`,
    // Spanish
    String.raw`no (?:nos|me) interesa|no (?:estamos|estoy) buscando|no (?:estamos|estoy) interesad\w*|no,? gracias|(?:gracias|muchas gracias),? pero (?:no|ya)|vamos a pasar|no es para nosotros`,
    String.raw`ya (?:tenemos|trabajamos|contamos|usamos|hemos)|(?:estamos|estoy) (?:muy )?(?:contentos|satisfechos|cubiertos)|(?:lo )?tenemos (?:todo )?cubierto|no necesitamos|tenemos (?:\w+ ){0,2}propi[oa]s?|no externaliz\w*`,
    // Dutch
    String.raw`geen (?:interesse|behoefte)|niet geinteresseerd|nee,? (?:hoor|dank\w*|bedankt)|niet nodig|(?:tevreden|blij) met (?:onze|ons|de huidige)|hebben (?:we|wij) (?:\w+ ){0,3}al|(?:we|wij) (?:hebben|doen) (?:dat |dit )?al`,
    // Portuguese
    String.raw`nao (?:temos|tenho) interesse|sem interesse|nao (?:estamos|estou) interessad\w*|nao,? obrigad\w*|obrigad\w*,? mas nao|nao precisamos|(?:satisfeitos|contentes) com|ja (?:usamos|temos|utilizamos|trabalhamos|contratamos)`,
  ],
  'g',
);

/** "Thanks though", "Danke, aber …": a polite close that leans to no, counted only when nothing clearer is said. */
const SOFT = anyOf(
  [
    String.raw`thanks (?:anyway|though|all the same)|(?:thanks|thank you|appreciated|appreciate it),? but`,
    String.raw`(?:danke|vielen dank),? aber|merci,? mais|gracias,? pero|bedankt,? maar|obrigad\w*,? mas`,
  ],
  'g',
);

export interface DeclineSignal {
  clear: boolean;
  soft: boolean;
}

/** The sentences of `folded` that are not questions. */
export function statements(folded: string): string {
  return folded
    .split(/(?<=[.!?\n])/)
    .filter((sentence) => !sentence.trim().endsWith('?'))
    .join(' ');
}

export function declineSignals(folded: string): DeclineSignal {
  const said = statements(folded);
  return { clear: affirmed(said, CLEAR), soft: affirmed(said, SOFT) };
}
