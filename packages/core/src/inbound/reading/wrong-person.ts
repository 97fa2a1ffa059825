/**
 * "Not the right contact" and "gone from the company", in six languages.
 * Strong phrasings say so outright ("wrong person", "ich bin nicht
 * zuständig", "a quitté la société"); weak ones only point elsewhere
 * ("cc'ing our CTO", "talk to Jana", "sits with our HR team"), which a
 * willing lead may also write, so they decide only when nothing else does.
 * A colleague covering an absence ("on leave until May, I'm covering") is
 * not a wrong person: that reply is read for what it asks.
 */
import { anyOf } from './fold.ts';
import { affirmed } from './negation.ts';
import { statements } from './decline.ts';

const STRONG = anyOf(
  [
    // English
    String.raw`(?:not|n't|isn't) (?:really )?(?:the )?(?:right|correct|best|appropriate|relevant) (?:person|contact|one|guy|people|team|department|address)`,
    String.raw`(?:have|got|emailed|contacted|reached|mean) the wrong [a-z]{2,20}`,
    String.raw`wrong (?:person|contact|guy|department|team|address|email|e-mail)`,
    String.raw`(?:not|n't) the (?:technical|decision|buying|relevant) (?:person|maker|contact)|not (?:a|the) decision[- ]maker`,
    String.raw`not (?:my|our) (?:area|department|remit|responsibility|field|domain|decision|call)`,
    String.raw`(?:no longer|not longer) (?:work|works|working|employed|with|at|part of|in charge|responsible|handle|handles|the)`,
    String.raw`(?:has|have|had) (?:since |now )?left (?:the company|the business|the firm|the organi[sz]ation|us|our|(?!(?:feedback|comments?|notes?|a|an|it|you|me|them|some)\b)\w+ (?:at|in|last|earlier|recently))`,
    String.raw`(?<!(?:we|we've|we have|they|they've) )left (?!(?:feedback|comments?|notes?|a|an|it|you|me|them|some)\b)(?:\w+ ){1,3}(?:at the end of|in (?:january|february|march|april|may|june|july|august|september|october|november|december|\d{4})|last (?:week|month|year)|earlier this|recently|a while ago|some time ago)`,
    String.raw`(?:i|he|she) (?:have |has |had )?(?:retired|since retired)|(?:i'm|i am) not (?:involved|responsible|in charge)`,
    String.raw`(?:emails|mails|messages) (?:now )?(?:come|go|are forwarded|are redirected|get forwarded) to me`,
    String.raw`(?:i'm|i am) (?:only |just )?(?:in|on|with) [a-z&/ -]{2,30}, not`,
    String.raw`(?:i don't|i do not) (?:handle|deal with|look after|work on|own|manage) (?:this|that|these|it)`,
    // German
    String.raw`nicht (?:der|die) (?:richtige|zustandige|passende|korrekte) (?:ansprechpartner\w*|person|kontakt\w*|adresse)`,
    String.raw`nicht mein (?:bereich|thema|ressort|zustandigkeitsbereich|aufgabengebiet)`,
    String.raw`falsche[rn]? (?:ansprechpartner\w*|person|adresse|kontakt)`,
    String.raw`(?:bin|ist) (?:hierfur |dafur |da |fur \w+ )?nicht (?:mehr )?zustandig`,
    String.raw`nicht mehr (?:im unternehmen|bei uns|bei \w+ tatig|fur \w+ zustandig|im haus|in der firma)`,
    String.raw`(?:hat|haben) (?:das unternehmen|uns|die firma|das haus) (?:\w+ )?verlassen`,
    String.raw`ist (?:bei uns )?(?:\w+ ){0,6}zustandig`,
    // French
    String.raw`(?:pas|plus) (?:la|le) (?:bon|bonne) (?:personne|interlocuteur|interlocutrice|contact)`,
    // "Je ne suis pas intéressé" declines: only "not the one in charge", "not there any more" say wrong person.
    String.raw`je ne suis (?:pas|plus) (?:la bonne|le bon|concerne\w*|responsable|en charge|charge|decisionnaire|l'interlocut\w+|la personne|dans|chez|au service|a ce poste|dans l'entreprise)|je ne (?:m'occupe|m'en occupe|gere|traite|decide) (?:pas|plus)|je ne travaille plus|je ne fais plus partie|(?:ne fait|ne fais) plus partie`,
    String.raw`(?:n'est|ne travaille|ne fait) plus (?:chez|partie|dans|avec|en charge)`,
    String.raw`a quitte (?:la societe|l'entreprise|le groupe|nos|notre|\w+)`,
    String.raw`(?:ce n'est|c'est) pas (?:moi|mon domaine|de mon ressort|mon service|mon perimetre)`,
    // Spanish
    String.raw`no soy (?:la persona|el contacto|quien|el|la) (?:adecuad\w|indicad\w|correct\w|responsable|encargad\w|que lleva)`,
    String.raw`(?:ya )?no (?:trabajo|trabaja|estoy|esta|forma parte|formo parte|sigue|sigo) (?:en|con|para|de) (?:la empresa|\w+)`,
    String.raw`(?:dejo|ha dejado|dejaron) la empresa`,
    String.raw`no (?:me )?(?:ocupo|encargo|llevo) (?:de )?(?:eso|esto|ese tema|este tema|esa area|esta area|compras|el tema)`,
    String.raw`no es (?:mi|de mi) (?:area|departamento|competencia|responsabilidad)`,
    // Dutch
    String.raw`niet de (?:juiste|goede|aangewezen) (?:persoon|contactpersoon|persoon hiervoor)`,
    String.raw`(?:valt|is) niet onder mijn|niet mijn (?:afdeling|verantwoordelijkheid|terrein|vakgebied)`,
    String.raw`(?:ik ben|ben ik) (?:hier(?:voor)? |daar(?:voor)? )?niet (?:verantwoordelijk|de juiste|degene)`,
    String.raw`werk(?:t)? (?:\w+ ){0,3}niet meer`,
    String.raw`is (?:uit dienst|vertrokken)`,
    String.raw`(?:heeft|hebben) (?:het bedrijf|ons|de organisatie) verlaten`,
    // Portuguese
    String.raw`nao (?:sou|e) (?:a pessoa|o contato|a responsavel|o responsavel|quem cuida)`,
    String.raw`nao (?:cuido|trabalho|respondo|estou) mais`,
    String.raw`(?:ja )?nao (?:trabalha|esta|faz parte) mais`,
    String.raw`saiu da (?:empresa|companhia)`,
    String.raw`nao e (?:da )?minha (?:area|responsabilidade)|nao e comigo`,
    // Gone: left, retired, moved to another role, a former employee's inbox (own phrasings in tests; each language).
    String.raw`(?:has|'s|have|'ve) (?:now |since |already |recently |just )?(?:left|retired)(?= ?[.,;!]|$| (?!(?:a|an|you|me|it|him|them|us a|for|on|early|his|her|their|some|my|your|feedback|comments?|notes?|voicemail|the (?:deck|document|file|office|building|meeting|message|chat|call|room|desk|door|details|note|comment|link))\b)[a-z])`,
    String.raw`retired (?:in|last|at the end of|earlier|recently|this|back in|a (?:few|couple))|(?:is|has) (?:now )?(?:retired|retiring)`,
    String.raw`former (?:employee|colleague|member of staff|staff member|team member|owner of this)|(?:inbox|mailbox|address|account) (?:is )?(?:no longer|not) (?:monitored|in use|active|checked|read|used)`,
    String.raw`(?:moved|changed|switched|transferred) (?:on )?(?:to|into) (?:a |another |a different |a new )(?:\w+ )?(?:role|position|team|department|job|division|post)|(?:changed|switched) (?:roles|jobs|teams|departments|positions)`,
    // Not my area: "I don't look after that", "not something I handle", "nothing to do with me", "not me, try…".
    // "I don't deal with cold outreach" declines the channel: it says nothing of who is in charge.
    String.raw`(?:i don't|i do not|i no longer|i'm not the one who|i am not the one who|i never) (?:\w+ )?(?:handle|deal with|look after|work on|own|manage(?! to)|cover|decide on|oversee|make (?:those|these|that|the|such) (?:calls|decisions|decision)|have (?:any )?say)(?! (?:with )?(?:cold|unsolicited|vendors?|sales|agencies|salespeople|spam|recruiters|outside|external|third|people who|companies who|companies that|mass)\b)`,
    String.raw`(?:isn't|is not|not|wasn't) (?:really )?something (?:i|i'm|i am) (?:\w+ )?(?:look after|handle|deal with|decide|manage|cover|own|work on|involved in|responsible for|in charge of)`,
    String.raw`nothing to do with me|(?:not|n't) (?:my|our) (?:job|thing|wheelhouse|bailiwick|team|department|function)|(?:^|(?<=[,.;-] ))not me(?= ?[.!,;]|$)`,
    String.raw`(?:i'm|i am) (?:just|only|merely) (?:a|an|the) (?:\w+ )?(?:contractor|receptionist|temp|intern|assistant|volunteer|freelancer|consultant|admin|administrator|office manager|front desk)`,
    String.raw`(?:forwarded|sent|came|delivered|addressed) to me (?:by mistake|in error|by accident)`,
    String.raw`bei mir (?:\w+ )?falsch|(?:sind|bist) (?:sie|du) (?:hier )?(?:leider )?falsch|damit habe ich nichts zu tun|(?:liegt|fallt) nicht (?:in|bei) mir|nicht (?:in )?meine(?:m|n)? (?:bereich|abteilung|ressort)`,
    String.raw`nicht mehr (?:\w+ ){0,4}(?:tatig|beschaftigt|angestellt)|nicht mehr (?:in|bei|fur) (?:\w+ ){0,3}(?:unternehmen|firma|haus|team)|(?:ist|sind) (?:\w+ ){0,2}(?:ausgeschieden|in rente|im ruhestand|in pension|pensioniert|in den ruhestand gegangen)|(?:abteilung|position|stelle|bereich) gewechselt|hat (?:\w+ ){0,5}verlassen`,
    String.raw`(?:a|ont) pris sa retraite|est (?:parti|partie|partis) (?:a la retraite|de|en|chez)|est a la retraite|a change de (?:poste|service|fonction|societe|entreprise)|j'ai change de (?:poste|service|fonction)|(?:ce n'est|c'est) pas moi qui|ne releve pas de (?:mon|ma|mes)|n'est pas de mon ressort|(?:ca|cela) ne me concerne pas|trompe\w* de (?:personne|destinataire|interlocuteur|contact|adresse)`,
    String.raw`(?:se ha |se )?jubil(?:o|ado|ada)|(?:ha|han) dejado (?:de trabajar|la empresa)|(?:cambio|he cambiado|cambie) de (?:puesto|departamento|area|funciones|cargo)|no (?:lo )?(?:llevo|gestiono|manejo|decido|veo) yo|no me corresponde|no es cosa mia|no tengo nada que ver|equivocad\w* de (?:persona|contacto|destinatario|direccion)`,
    String.raw`(?:daar|hier|dat) ga ik niet over|ga ik niet over|is (?:met )?pensioen|met pensioen (?:gegaan|sinds)|(?:is|zijn) niet (?:meer|langer) (?:werkzaam|in dienst|bij ons|verbonden)|niet langer (?:werkzaam|in dienst|bij)|verkeerde (?:persoon|contactpersoon|adres)|(?:andere|nieuwe) (?:functie|afdeling|rol)`,
    String.raw`nao sou eu (?:quem|que)|nao (?:cuido|trato|decido) (?:disso|desse|dessa|de|do|da)|(?:ja )?nao (?:trabalha|esta|faz parte)(?: mais)? (?:aqui|na empresa|conosco|connosco|da empresa|da equipe|com a gente)|(?:ja )?nao (?:trabalho|estou) (?:mais )?(?:aqui|na empresa|la)|se aposentou|aposentou-se|esta aposentad\w|deixou a empresa|mudei de (?:area|cargo|setor|funcao|departamento)|(?:pessoa|contato|destinatario) errad[oa]`,
    String.raw`moved on(?= ?[.,;!]|$| (?:in|last|from|to (?:a|another|a new)|earlier|recently|a while|some time))|not with (?:us|the company|the firm|the team|the business) (?:anymore|any more|any longer)`,
    String.raw`(?:isn't|is not|aren't|wasn't) (?:really )?(?:my|our) (?:area|department|remit|responsibility|field|domain|decision|call|job|thing|team|function|wheelhouse|side)|(?:isn't|is not|'s not) me(?= ?[.,;!-]|$)|someone else's (?:job|area|call|department|responsibility|remit|decision)`,
    String.raw`passed away|(?:has|have) died|(?:is|has) deceased|verstorben|est decede\w*|(?:ha )?fallecido|fallecio|overleden|faleceu`,
    String.raw`no soy (?:yo )?(?:quien|el que|la que) (?:decide|lleva|gestiona|se encarga|lo lleva|decido|llevo)`,
    // "I do X, not Y", and a mailbox no longer read, in each language.
    String.raw`(?:ich bin|bin ich) (?:nur )?fur (?:\w+ ){1,3}zustandig,? (?:aber )?nicht|arbeitet (?:\w+ ){0,2}nicht mehr (?:hier|bei uns|fur uns|im haus)|(?:adresse|postfach|mailbox|konto) (?:\w+ )?(?:wird|ist) (?:\w+ )?nicht mehr (?:genutzt|benutzt|gelesen|aktiv|besetzt|verwendet|abgerufen)`,
    String.raw`ne travaille plus (?:ici|chez|avec|pour|dans|la)|je m'occupe (?:\S+ ){1,4}pas (?:de|du|des|d'[a-z]+)|(?:ce n'est|c'est) pas (?:mon role|mon travail|mon poste|mon metier)|adresse (?:\w+ )?(?:n'est plus|ne sera plus|n'est pas) (?:utilisee|lue|active|consultee)`,
    String.raw`(?:yo )?(?:me encargo|me ocupo|llevo) (?:de |del )?(?:\S+ ){1,3}no (?:de|del|la|el|los|las)|(?:direccion|correo|cuenta|buzon) (?:\w+ ){0,2}(?:ya )?no se (?:utiliza|usa|lee|revisa|consulta)`,
    String.raw`(?:ik doe|ik zit op|ik regel|ik ben van) (?:alleen |enkel )?(?:\S+ ){1,3}niet (?:de|het|voor)|(?:adres|mailbox|e-?mailadres|account) (?:\w+ ){0,2}(?:wordt|is) (?:\w+ )?niet meer (?:gelezen|gebruikt|actief|bekeken)`,
    String.raw`(?:eu )?(?:cuido|sou|trabalho|fico) (?:do|da|de|com|no|na) (?:\S+ ){0,3}nao (?:de|do|da|com)|nao (?:faz|fazem) mais parte|nao (?:trabalha|esta) mais (?:aqui|na|no|conosco|com)|(?:e-?mail|endereco|caixa|conta) (?:\w+ ){0,2}nao (?:e|esta) mais (?:usad|utilizad|ativ|lid|monitorad)\w*`,
  ],
  'g',
);

const WEAK = anyOf(
  [
    // English
    String.raw`(?:you'd|you would|you'll|you will|you should|you might|you may|better|best) (?:want to |need to |like to |be better off )?(?:talk|speak|reach out|get in touch|contact|write|email|direct|chat)(?: to| with)?`,
    String.raw`(?:reach out|talk|speak|write|get in touch) (?:to|with) (?:her|him|them) (?:directly|instead)`,
    String.raw`(?:please )?(?:direct|forward|redirect|address) (?:this|it|your (?:email|message|note|request|inquiry)) to`,
    String.raw`(?:sits|lies|falls|rests) with`,
    String.raw`(?:contact|reach out to|email|write to|talk to|speak to|speak with) (?:our|the|my) (?:\w+ ){0,2}(?:team|department|colleague|manager|director|office|head|cfo|ceo|cto|coo) instead`,
    String.raw`(?:is|are) (?:handled|managed|owned|run|booked|done|looked after|taken care of|dealt with|covered|decided) by`,
    String.raw`(?:cc'?ing|cc'?d|copied|copying|looping in|looped in|forwarded (?:this|it|your)|forwarding (?:this|it|your)|passed (?:this|it) (?:on|along)|passing (?:this|it) (?:on|along)|sending (?:this|it) on|sent (?:this|it) on)`,
    String.raw`(?:to|with) the (?:right|correct|appropriate|relevant) (?:person|people|team|contact)`,
    String.raw`(?:his|her|their) (?:email|address|e-mail)(?: address)? is`,
    String.raw`(?:you can|please) (?:reach|contact|email|write to) (?:her|him|them) at`,
    String.raw`(?:runs|owns|handles|manages) (?:it|this|that)|(?:he|she|they) (?:runs|owns|handles|manages|is responsible for|are responsible for|looks after|is in charge of|takes care of|decides)`,
    String.raw`(?:reach out to|contact|email|write to|speak to|talk to|speak with|talk with|get in touch with) (?:\w+ ){1,3}(?:at|on|via) [^ @]{1,64}@`,
    String.raw`(?:would be|is|are|will be) (?:the )?(?:right|best|correct|better|appropriate) (?:person|contact|people)`,
    String.raw`(?:my|mi|mon|ma|meine|meinen|mijn|minha|meu) (?:colleague|companer[oa]|colega|collegue|kollegin|kollegen|kollege|collega)`,
    // German
    String.raw`wenden sie sich (?:bitte )?an`,
    String.raw`(?:weitergeleitet|weitergegeben) an|an (?:sie|ihn|die kollegin|den kollegen) weitergeleitet|bereits weitergeleitet`,
    String.raw`(?:kummert|kummern) sich (?:\w+ ){0,3}(?:darum|um)`,
    // French
    String.raw`(?:adressez-vous|adressez vous|ecrivez plutot|contactez plutot|voyez avec|voir avec)`,
    String.raw`(?:vous pouvez|merci d'|veuillez) (?:ecrire|vous adresser|contacter|joindre) (?:a|au|aux)`,
    String.raw`(?:transmis|transmettront|transmettra|transmets|transfere|transferer) (?:votre|ce|a|au)`,
    // Spanish
    String.raw`la persona (?:de|que lleva|encargada|responsable)`,
    String.raw`(?:yo )?(?:llevo|me encargo de|me ocupo de) la parte`,
    String.raw`(?:escriba|escribe|escribid|escribanle|escribale|escribidle|contacte|contacten|contacta|contactad|hable|hablen|habla|dirijase|dirigete) (?:a|con)`,
    String.raw`(?:le|te|lo) (?:he )?reenviado`,
    // Dutch
    String.raw`(?:valt|vallen) onder`,
    String.raw`neem (?:\w+ ){0,3}contact op met`,
    String.raw`(?:kunt u|kun je) (?:beter )?(?:contact opnemen|mailen|bellen) (?:met|naar)`,
    String.raw`doorgestuurd (?:naar|aan)`,
    // Portuguese
    String.raw`(?:fale|falar|procure|procurar|contate|contatar|entre em contato) com`,
    String.raw`(?:encaminhei|encaminhado|repassei) (?:para|a|seu|sua|o)`,
    String.raw`(?:quem )?cuida (?:disso|desse|dessa|do|da|dos|das)`,
    // Pointing on: "you'll want our IT director", "try our security lead", "I'll forward this on", "decisions go through head office".
    String.raw`(?:you'll|you will|you'd|you would|you) (?:want|need) (?:to (?:talk|speak|write|reach out) (?:to|with) )?(?:our|my|the) (?:\w+ ){0,3}(?:director|manager|team|department|lead|head|officer|colleague|person|people|cfo|cto|ceo|coo|cio|buyer|owner)`,
    String.raw`(?:try|ask|ping) (?:our|my|the) (?:\w+ ){0,3}(?:lead|team|department|manager|director|head|colleague|office|officer|person|buyer|cfo|cto|ceo|coo|cio)`,
    String.raw`would be the (?:one|ones|person|people)|(?:is|are) the (?:one|ones|person|people) (?:to|you)|(?:someone|somebody) (?:else|in|from) (?:\w+ ){0,3}(?:would be|is|will be|might be) (?:better|more appropriate|the right)`,
    String.raw`(?:i'll|i will|will|i can|let me|i'm going to|happy to) (?:\w+ )?(?:forward|pass|send|hand) (?:this|it|your \w+|that)(?: on| along| over)?(?: to)?|passed (?:this|it|your (?:\w+ )?(?:note|email|message|details|request)) (?:on|along|over|to)`,
    String.raw`(?:direct|forward|redirect|address|send) (?:any |all )?(?:future |further )?(?:correspondence|emails|enquiries|inquiries) to`,
    String.raw`(?:decision|decisions|call|calls) (?:is|are|get|gets) (?:\w+ )?(?:made|taken) (?:\w+ )?(?:by|at|in) (?:our|the|head|group|hq|a)|go(?:es)? through (?:our|the|my) (?:\w+ ){0,2}(?:team|department|office|colleague|manager|director|head)|(?:is|are) (?:handled|managed|run|decided|done) centrally`,
    String.raw`zustandig (?:ist|sind|ware|waren)|(?:ansprechpartner|ansprechpartnerin) (?:ist|ware|dafur ist)|(?:leite|gebe) (?:\w+ ){0,3}an (?:den|die|das) (?:zustandige\w*|richtige\w*|verantwortliche\w*)`,
    String.raw`(?:je )?(?:fais suivre|transmets|transfere) (?:votre|ce|a|au|le|la)|(?:c'est|voyez) (?:\w+ ){0,2}qui (?:gere|s'occupe|decide)`,
    String.raw`(?:se )?lo (?:paso|reenvio|pasare|reenviare|he pasado|he reenviado) a|a quien corresponda|(?:eso|esto) (?:lo )?(?:lleva|gestiona|ve|decide|maneja) (?:\w+ )?(?:el|la|mi|nuestro|nuestra)`,
    String.raw`probeer (?:onze|ons|de|mijn|het)|(?:ik )?(?:stuur|geef) (?:het|dit|uw bericht|je bericht) (?:\w+ )?door|(?:ligt|hoort) bij (?:onze|de|mijn)|(?:moet|moeten) (?:u|je|jullie) bij (?:\S+ ){0,3}zijn`,
    String.raw`quem (?:ve|cuida|trata|decide|responde) (?:\w+ ){0,3}e (?:o|a)|(?:vou|irei) (?:encaminhar|repassar|passar)`,
    String.raw`(?:das|dies|dieses thema|daruber) (?:entscheidet|verantwortet|betreut|macht|regelt) bei uns`,
  ],
  'g',
);

/** Handled elsewhere, said in the passive ("ce sujet est géré par notre siège"): read only from statements, since a question ("is it handled by your team?") asks about the product. */
const SAID_WEAK = anyOf(
  [
    // "Ce sujet est géré par notre siège": handled by someone else, in each language.
    String.raw`(?:est|sont) (?:gere|geree|geres|traite|traitee|traites|pris en charge|suivi|suivie|decide|decidee) (?:\w+ )?par|wird (?:\w+ ){0,3}(?:von|uber) (?:\w+ ){0,3}(?:betreut|entschieden|verwaltet|abgewickelt|bearbeitet|gesteuert)`,
    String.raw`(?:es|son|esta|estan) (?:gestionad|llevad|decidid|centralizad)\w* (?:\w+ )?(?:por|desde|en)|(?:wordt|worden) (?:\w+ ){0,3}(?:geregeld|beheerd|beslist|gedaan|afgehandeld) (?:door|via|vanuit)|(?:e|sao) (?:tratad|gerid|decidid|cuidad|centralizad)\w* (?:\w+ )?(?:por|pelo|pela)`,
  ],
  'g',
);

export interface WrongPersonSignal {
  strong: boolean;
  weak: boolean;
}

export function wrongPersonSignals(folded: string): WrongPersonSignal {
  return { strong: affirmed(folded, STRONG), weak: affirmed(folded, WEAK) || affirmed(statements(folded), SAID_WEAK) };
}
