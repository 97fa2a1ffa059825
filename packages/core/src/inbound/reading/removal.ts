/**
 * A request to stop, be removed or not be contacted again (a GDPR, AVG or
 * LGPD erasure or objection included), in English, German, French, Spanish,
 * Dutch and Portuguese. Missing one is a compliance failure, so the verbs
 * are many; a false one unsubscribes a willing lead, so each pattern needs
 * the object of the request (me, us, my address, the list, the emails), and
 * a negation or a hypothetical just before it ("don't remove me", "I was
 * about to hit unsubscribe") cancels it. Patterns read folded text (fold.ts).
 */
import { anyOf } from './fold.ts';
import { carriesNegation, negatedAt } from './negation.ts';

const ME = String.raw`(?:me|us|my (?:e-?mail(?: address)?|address|details|name|contact(?: details)?|data)|this (?:e-?mail address|address|inbox)|our (?:e-?mail|address|details))`;
const LIST = String.raw`(?:list|lists|mailing list|email list|e-mail list|distribution list|database|db|system|crm|contacts|sequence|campaign|mailings?)`;

const EN = [
  String.raw`unsubscribe (?:me|us|this (?:address|email|e-mail)|my (?:email|e-mail|address)|our (?:email|e-mail|address))`,
  String.raw`(?:please|pls|plz|kindly) (?:remove|unsubscribe|delete)(?= ?[.!]|$)`,
  String.raw`(?:want|like|wish|ask|asked) to be (?:removed|taken off|deleted|unsubscribed)`,
  String.raw`(?:please|pls|plz|kindly|can you|could you|would you|i want to|i'd like to|i would like to|i wish to|want to be|like to be|need to be) (?:(?!not |never |no )\w+ ){0,2}unsubscribed?`,
  String.raw`(?:remove|delete|exclude|erase|purge|scrub) ${ME}`,
  String.raw`(?:take|tkae|tak|get) ${ME} (?:off|of|out of)`,
  String.raw`${ME} (?:off|of) (?:your|this|the|ur|all|any|these) (?:\w+ ){0,2}${LIST}`,
  // "We need to stop sending invoices by hand" is not addressed to us: a subject before "stop" cancels it, and sending needs an object.
  String.raw`(?<!(?:we|i|they|to|will|should|must|cannot|can't|didn't) )stop (?:\w+ )?(?:emailing|e-mailing|mailing|contacting|messaging|spamming|bothering|pestering|harassing|texting|calling|reaching out|writing to (?:me|us)|sending (?:me|us|these|this|those|emails|e-mails|messages|mails|spam))`,
  String.raw`(?:do not|don't|dont|never|pls don't|please don't) (?:ever )?(?:email|e-mail|mail|contact|write to|message|text|spam|reach out to) (?:me|us|this address)`,
  String.raw`(?:do not|don't|dont|never) (?:ever )?(?:email|e-mail|mail|contact|write|message|spam|send (?:me |us )?(?:any|more|further|emails|messages)) (?:me |us )?(?:again|anymore|any more)`,
  String.raw`(?:do not|don't|dont|never) (?:ever )?(?:send|email|mail|message) (?:me|us) (?:any ?more|any more|anything else|more|further|another|again)`,
  String.raw`no (?:more|further) (?:emails|e-mails|mails|messages|contact|outreach|follow-ups|follow ups)`,
  String.raw`(?:don't|do not|dont) want (?:to (?:receive|get|hear)|any) (?:\w+ )?(?:more |further |any )?(?:emails|e-mails|mails|messages|from you)`,
  String.raw`(?:don't|do not|dont) want to be contacted`,
  String.raw`(?:how|where) (?:do|can|could|should) (?:i|we) (?:unsubscribe|opt out|get off)(?: (?:from )?(?:this|these|your|the list|here|the emails|your emails|your list))?(?= ?[?.!]|$)`,
  String.raw`leave (?:me|us) alone|cease and desist|(?:stop|cease|end) all (?:communication|contact|emails|outreach)`,
  String.raw`remove (?:me |us |my \w+ |this \w+ )?(?:off|from) (?:the |your |this |ur )?(?:\w+ )?(?:list|lists|database)`,
  String.raw`(?:i|we) (?:want|wish|need) (?:to be |to get )?(?:off|out of) (?:this|your|the|ur) (?:\w+ )?(?:list|lists|database)`,
  String.raw`(?:don't|do not|dont) (?:want|wish) to (?:be contacted|be emailed|hear from you)`,
  String.raw`opt (?:me|us) out|(?:i|we) (?:want to |would like to |wish to )?opt out|opt-out request`,
  // "Can your tool delete our records?" asks about the product: only my data, or our personal data, is a request.
  String.raw`(?:erase|delete|remove|purge) (?:all |any )?(?:of )?(?:my (?:personal )?|our personal )(?:data|details|information|info|records)`,
  String.raw`(?:erase|delete|remove|purge) all (?:\w+ ){0,2}personal data`,
  String.raw`right to (?:erasure|be forgotten|object)`,
  String.raw`(?:article|art\.?) ?(?:17|21)(?: of the)? (?:uk )?(?:gdpr|dsgvo|rgpd|avg|lgpd)`,
  String.raw`(?:do not|don't) (?:contact|email) list`,
];

const DE = [
  // "Kunden aus Verteilern austragen" is about their customers: the verb needs me, us or a plea.
  String.raw`(?:mich|uns|bitte) (?:\w+ ){0,2}(?:abmelden|austragen|abbestellen)|(?:abmelden|austragen|abbestellen)(?: bitte)?(?= ?[.!]|$)`,
  String.raw`nicht mehr (?:angeschrieben|kontaktiert|angemailt|angerufen|belastigt) (?:zu )?werden`,
  String.raw`(?:tragen|melden|nehmen|streichen|entfernen|loschen) sie (?:mich|uns|meine (?:e-?mail-?adresse|adresse|daten|kontaktdaten))`,
  String.raw`(?:mich|uns|meine (?:e-?mail-?adresse|adresse|daten|kontaktdaten)) (?:bitte )?(?:aus|von) (?:\w+ ){0,3}(?:verteiler|liste|mailingliste|datenbank|kartei|newsletter)`,
  String.raw`(?:aus|von) (?:dem|der|ihrem|ihrer|eurem|eurer|diesem|dieser) (?:\w+ )?(?:verteiler|liste|mailingliste|newsletter|datenbank|kartei) (?:\w+ )?(?:nehmen|entfernen|streichen|loschen|austragen)`,
  String.raw`(?:mochte|will|mochten|wollen) (?:\w+ ){0,3}(?:entfernt|geloscht|ausgetragen|abgemeldet) werden`,
  String.raw`(?:mochte|will|wollen|mochten|wunsche|wunschen) (?:\w+ ){0,2}keine (?:\w+ ){0,2}(?:e-?mails|mails|nachrichten|werbung|werbemails|newsletter|zusendungen|anrufe) (?:mehr )?(?:erhalten|bekommen|empfangen)`,
  String.raw`bitte keine (?:weiteren |weitere )?(?:e-?mails|mails|nachrichten|werbung|anfragen|kontaktaufnahmen?)`,
  String.raw`keine weiteren? (?:e-?mails|mails|nachrichten|kontaktaufnahmen?|anschreiben|werbung)`,
  String.raw`keine (?:e-?mails|mails|nachrichten|werbung) mehr`,
  String.raw`(?:kontaktieren|schreiben|anschreiben|mailen|belastigen|kontakten) sie (?:mich|uns|mir) (?:bitte )?(?:nicht mehr|nie wieder|nicht wieder|nicht erneut|nicht)`,
  String.raw`(?:nicht mehr|nie wieder) (?:kontaktieren|anschreiben|anmailen|mailen|schreiben)`,
  String.raw`(?:widerspreche\w*|widerspruch gegen) (?:\w+ ){0,6}(?:verwendung|nutzung|verarbeitung|werbung|werbezweck\w*|speicherung|daten|kontaktaufnahme)`,
  String.raw`(?:loschen sie|loschung) (?:\w+ ){0,3}(?:meiner|meine|meinen|unserer) (?:\w+ )?(?:daten|adresse|e-?mail-?adresse|kontaktdaten)`,
  String.raw`(?:meine|meiner|unsere) (?:\w+ ){0,2}(?:daten|adresse|e-?mail-?adresse|kontaktdaten) (?:\w+ ){0,3}(?:zu )?loschen`,
  String.raw`art\.? ?(?:17|21) (?:dsgvo|ds-gvo)`,
];

const FR = [
  String.raw`desinscri\w*|desabonn\w*|desinscription`,
  String.raw`(?:je souhaite|je veux|je voudrais|nous souhaitons) (?:etre )?(?:retire|retiree|supprime|supprimee|desinscrit|desinscrite)s?`,
  String.raw`(?:retirez|supprimez|enlevez|rayez|effacez|sortez|otez)(?:-| )(?:moi|nous|mon adresse|mon e-?mail|mes (?:coordonnees|donnees))`,
  String.raw`me (?:retirer|supprimer|enlever|rayer|sortir) (?:de|du|des)`,
  String.raw`ne (?:me |m'|nous )?(?:contactez|ecrivez|envoyez|sollicitez|relancez) plus`,
  String.raw`ne (?:plus|pas) (?:me |m'|nous )?(?:contacter|ecrire|solliciter|envoyer|relancer|recevoir)`,
  String.raw`(?:cessez|arretez|arreter|cesser) (?:de |d')(?:m'|me |nous )?(?:ecrire|envoyer|contacter|solliciter|spammer|relancer)`,
  String.raw`ne (?:veux|voulons|souhaite|souhaitons|desire) plus (?:\w+ ){0,3}(?:recevoir|mails|e-mails|emails|messages|courriels|etre contacte\w*|etre sollicite\w*)`,
  String.raw`(?:supprimer|effacer|suppression|effacement) (?:\w+ ){0,3}(?:mes|de mes|mon) (?:donnees|coordonnees|adresse|e-?mail)`,
  String.raw`ne plus etre (?:contacte|sollicite|relance)\w*`,
  String.raw`droit (?:a l'effacement|a l'oubli|d'opposition)`,
];

const ES = [
  String.raw`(?:dar\w*|den\w*|dad\w*|dame|denme|solicito|quiero|pido|tramiten) (?:de )?(?:la )?baja`,
  String.raw`borrame|borrenme|borradme|eliminame|eliminenme|eliminadme|quitame|quitenme|quitadme|sacame|saquenme|sacadme|excluyanme|excluyeme`,
  String.raw`(?:borren|borrad|eliminen|eliminad|quiten|quitad|saquen|sacad|elimine|borre|quite|saque|excluya|elimina|borra|quita|saca) (?:mis|mi|nuestros|nuestra|nuestro|este correo|esta direccion)`,
  String.raw`(?:elimin|borr|quit|sac|excluy)\w* (?:\w+ ){0,3}de (?:su|vuestra|tu|la) (?:lista|base de datos|listado)`,
  String.raw`no (?:volver a )?ser contactad[oa]s?`,
  String.raw`(?:me|nos) (?:borren|borreis|eliminen|quiten|saquen|den de baja|deis de baja)`,
  String.raw`(?:borrar|eliminar|suprimir|supresion de) (?:\w+ ){0,2}(?:mis datos|mi correo|mi direccion|mi email|mi e-mail|mis datos personales)`,
  String.raw`(?:quiero|deseo|queremos) ser (?:eliminad[oa]s?|borrad[oa]s?|dad[oa]s? de baja|excluid[oa]s?)`,
  String.raw`no me (?:escriban|escribas|escribais|envien|envies|mandes|manden|contacten|contactes|llamen|molesten)`,
  String.raw`(?:dejen|deja|dejad|dejad) de (?:enviarme|escribirme|mandarme|contactarme|molestarme|enviar|escribir|mandar|molestar|contactar)`,
  String.raw`no (?:quiero|deseo) (?:recibir|que me (?:escriban|contacten|envien))`,
  String.raw`no (?:vuelvan|vuelvas|volvais) a (?:escribir|contactar|enviar|llamar)`,
];

const NL = [
  String.raw`uitschrijv\w*|uitgeschreven|afmelden|afgemeld|schrijf (?:me|mij|ons) (?:uit|af)|meld (?:me|mij|ons) af`,
  String.raw`verwijder (?:me|mij|ons|mijn (?:e-?mail(?:adres)?|adres|gegevens|naam))`,
  String.raw`(?:mij|me|ons|mijn (?:e-?mailadres|adres|gegevens)) (?:\w+ ){0,4}(?:verwijderen|verwijderd|verwijdert|schrappen|wissen|uitschrijven)`,
  String.raw`(?:haal|zet) (?:me|mij|ons|mijn (?:e-?mail(?:adres)?|adres|gegevens|naam)) (?:\w+ ){0,2}(?:van|uit|af) (?:de|jullie|uw|je|deze) (?:\w+ )?(?:lijst|mailinglijst|bestand|database|verzendlijst)`,
  String.raw`(?:wil|wens|willen) (?:graag )?(?:\w+ ){0,2}(?:verwijderd|uitgeschreven|afgemeld) (?:worden|hebben)`,
  String.raw`(?:van|uit) (?:de|jullie|uw|je|deze) (?:\w+ )?(?:lijst|mailinglijst|verzendlijst|bestand|database) (?:af|uit|halen|verwijderen)`,
  String.raw`niet meer (?:gemaild|ge-?e-?maild|benaderd|gecontacteerd|lastiggevallen)`,
  String.raw`geen (?:e-?mails|mails|berichten|mailtjes|mailings) meer`,
  String.raw`stuur (?:me|mij|ons) geen`,
  String.raw`(?:neem|neemt) geen contact (?:meer )?op`,
  String.raw`niet meer (?:te )?(?:mailen|benaderen|contacteren|e-?mailen|sturen|lastigvallen)`,
  String.raw`(?:stop|stopt|stoppen) (?:met )?(?:mailen|e-?mailen|sturen|benaderen|mailtjes)`,
];

const PT = [
  String.raw`descadastr\w*|cancelar (?:minha |a )?inscricao|sair da (?:sua |vossa )?lista`,
  String.raw`(?:remover|remova|removam|retire|retirem|tire|tirem|exclua|excluam|apague|apaguem|deletem)[- ](?:o )?(?:meu|minha|meus|minhas|me)`,
  String.raw`me (?:remova|removam|tire|tirem|exclua|excluam|descadastre|descadastrem|retire|retirem)`,
  String.raw`(?:exclusao|remocao|eliminacao) (?:dos|de|do|da) (?:meus|meu|minha|minhas) (?:dados|e-?mail|contato|cadastro)`,
  String.raw`(?:excluir|apagar|remover|eliminar|deletar) (?:os |o )?(?:meus|minhas|meu|minha) (?:dados|e-?mail|contato|informacoes|cadastro)`,
  String.raw`nao me (?:envie|enviem|mande|mandem|contate|contatem|procure|procurem|escreva|escrevam|ligue|liguem|perturbe|perturbem)`,
  String.raw`nao (?:envie|enviem|mande|mandem) mais`,
  String.raw`(?:parem|pare|deixem|deixe) de (?:me )?(?:enviar|mandar|escrever|contatar|ligar|perturbar)`,
  String.raw`(?:quero|gostaria de|desejo|queremos) ser (?:removid[oa]s?|excluid[oa]s?|descadastrad[oa]s?|retirad[oa]s?)`,
  String.raw`nao (?:quero|desejo) (?:mais )?(?:receber|ser contatad\w)`,
];

/** "Stop. Just stop.": nothing but stops. */
const ONLY_STOP = /^(?:(?:just |please |pls |now )?stop\W{0,5}){1,4}$/;

/** A message that is nothing but the request ("Stop", "Unsubscribe!", "remove"). */
const WHOLE = /^\W{0,5}(?:please |pls |bitte |graag |por favor )?(?:stop|stopp|unsubscribe|remove|remove me|unsubscribe me|abmelden|austragen|desinscription|desinscrire|baja|uitschrijven|afmelden|descadastrar|descadastre)\W{0,5}(?:please|pls|thanks|thank you|danke|bitte|merci|svp|s'il vous plait|gracias|por favor|bedankt|graag|aub|alstublieft|obrigad[oa])?\W{0,5}$/u;

const REQUEST = anyOf([...EN, ...DE, ...FR, ...ES, ...NL, ...PT], 'g');

/** "Don't email me, call me instead": a channel preferred, not a removal. */
const OTHER_CHANNEL = /^[^.!?]{0,12}\b(?:call|phone|ring|text|whatsapp|linkedin|instead|rather|anrufen|rufen|appelez|llame|llamame|bel|ligue|liga)\b/;

/** "I was about to hit unsubscribe", "no need to remove me": the words name a removal without asking for it. */
const HYPOTHETICAL = /(?:about to|going to|was gonna|almost|nearly|tempted to|thought about|thinking of|no need to|don't need to|do not need to|don't|do not|please don't|dont|never|no)(?: (?:hit|click|press|just))? $/;

export function asksRemoval(folded: string): boolean {
  if (WHOLE.test(folded.trim()) || ONLY_STOP.test(folded.trim())) return true;
  REQUEST.lastIndex = 0;
  for (let m = REQUEST.exec(folded); m; m = REQUEST.exec(folded)) {
    const before = folded.slice(Math.max(0, m.index - 40), m.index);
    // Requests phrased with their own negation ("don't email me", "bitte keine E-Mails", "no me escriban") are not cancelled by it.
    if (!carriesNegation(m[0]) && (HYPOTHETICAL.test(before) || negatedAt(folded, m.index, false))) continue;
    if (OTHER_CHANNEL.test(folded.slice(m.index + m[0].length, m.index + m[0].length + 40))) continue;
    return true;
  }
  return false;
}
