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

const ME = String.raw`(?:me|us|my (?:e-?mail(?: address)?|address|details|name|contact(?: details| info(?:rmation)?)?|data|info|information|records|personal (?:data|details|information)|(?:phone |mobile )?number)|this (?:e-?mail address|address|inbox)|our (?:e-?mail|address|details))`;
const LIST = String.raw`(?:list|lists|mailing list|email list|e-mail list|distribution list|database|databases|db|system|systems|crm|contacts|sequences?|campaigns?|mailings?|records|files|outreach|newsletters?|cadences?|marketing|automation|contact list|suppression list)`;

const EN = [
  String.raw`unsubscribe (?:me|us|this (?:address|email|e-mail)|my (?:email|e-mail|address)|our (?:email|e-mail|address))`,
  String.raw`(?:please|pls|plz|kindly) (?:remove|unsubscribe|delete)(?= ?[.!]|$)`,
  String.raw`(?:want|like|wish|ask|asked) to be (?:removed|taken off|deleted|unsubscribed)`,
  String.raw`(?:please|pls|plz|kindly|can you|could you|would you|i want to|i'd like to|i would like to|i wish to|want to be|like to be|need to be) (?:(?!not |never |no )\w+ ){0,2}unsubscribed?`,
  String.raw`(?:remove|delete|exclude|erase|purge|scrub|wipe) ${ME}`,
  String.raw`(?:take|tkae|tak|get) ${ME} (?:off|of|out of)`,
  String.raw`${ME} (?:off|of) (?:your|this|the|ur|all|any|these) (?:\w+ ){0,2}${LIST}`,
  // "We need to stop sending invoices by hand" is not addressed to us: a subject before "stop" cancels it, and sending needs an object.
  String.raw`(?<!(?:we|i|they|to|will|should|must|cannot|can't|didn't) )stop (?:\w+ )?(?:emailing|e-mailing|mailing|contacting|messaging|spamming|bothering|pestering|harassing|texting|reaching out|writing to (?:me|us)|sending (?:me|us|these|this|those|emails|e-mails|messages|mails|spam))`,
  String.raw`(?:do not|don't|dont|never|pls don't|please don't) (?:ever )?(?:email|e-mail|mail|contact|write to|message|text|spam|reach out to) (?:me|us|this address)`,
  String.raw`(?:do not|don't|dont|never) (?:ever )?(?:email|e-mail|mail|contact|write|message|spam|send (?:me |us )?(?:any|more|further|emails|messages)) (?:me |us )?(?:again|anymore|any more)`,
  String.raw`(?:do not|don't|dont|never) (?:ever )?(?:send|email|mail|message) (?:me|us) (?:any ?more|any more|anything else|more|further|another|again)`,
  String.raw`no (?:more|further) (?:emails|e-mails|mails|messages|contact|outreach|follow-ups|follow ups)`,
  String.raw`(?:don't|do not|dont) want (?:to (?:receive|get|hear)|any) (?:\w+ )?(?:more |further |any )?(?:emails|e-mails|mails|messages|from you)`,
  String.raw`(?:don't|do not|dont) want to be contacted`,
  String.raw`(?:how|where) (?:do|can|could|should) (?:i|we) (?:unsubscribe|opt out|get off)(?: (?:from )?(?:this|these|your|the list|here|the emails|your emails|your list))?(?= ?[?.!]|$)`,
  String.raw`leave (?:me|us) alone|cease and desist|(?:stop|cease|end) all (?:communication|contact|emails|outreach)`,
  String.raw`remove (?:me |us |my \w+ |this \w+ )?(?:off|from) (?:the |your |this |ur )?(?:\w+ )?(?:list|lists|database)`,
  String.raw`(?:i|we) (?:want|wish|need|would like|'d like) (?:to be |to get )?(?:off|out of) (?:this|your|the|ur|all|any) (?:\w+ )?${LIST}`,
  String.raw`(?:don't|do not|dont) (?:want|wish) to (?:be contacted|be emailed|hear from you)`,
  String.raw`opt (?:me|us) out|(?:i|we) (?:want to |would like to |wish to )?opt out|opt-out request`,
  // "Can your tool delete our records?" asks about the product: only my data, or our personal data, is a request.
  String.raw`(?:erase|delete|remove|purge) (?:all |any )?(?:of )?(?:my (?:personal )?|our personal )(?:data|details|information|info|records)`,
  String.raw`(?:erase|delete|remove|purge) all (?:\w+ ){0,2}personal data`,
  String.raw`right to (?:erasure|be forgotten|object)`,
  String.raw`(?:article|art\.?) ?(?:17|21)(?: of the)? (?:uk )?(?:gdpr|dsgvo|rgpd|avg|lgpd)`,
  String.raw`(?:do not|don't) (?:contact|email) list`,
  // Bare stops and quits: "Please stop.", "Quit spamming me", "No more of these" (a pause after the plea keeps "stop by our booth" out).
  String.raw`(?:please|pls|plz|just|so|now|seriously|kindly),? (?:just )?stop(?:(?= ?[.!,;]|$)| it(?= ?[.!]|$))`,
  String.raw`(?<!(?:we|i|they|to|will|should|must|cannot|can't|didn't) )quit (?:\w+ )?(?:emailing|e-mailing|mailing|contacting|messaging|spamming|bothering|pestering|harassing|sending)`,
  String.raw`no more of (?:these|this|them|those|your (?:\w+ )?(?:emails|e-mails|mails|messages|spam|pitches|sequences))`,
  // Preferences and passives: "I'd rather not receive these", "my details could be removed from your list", "refrain from contacting me".
  String.raw`(?:i'd|i would|we'd|we would|i'd much|i'd really) (?:much |really )?(?:rather|prefer) (?:not|to not|you didn't|you did not|you don't|you stopped) (?:\w+ )?(?:receive|get|be (?:contacted|emailed|e-mailed|added|included|on)|hear|contact|email|send|receiving|getting|being)`,
  String.raw`(?:be|been|get|gets|got|being) (?:\w+ )?(?:removed|deleted|taken|erased|struck|dropped|unsubscribed|excluded) (?:from|off|out of) (?:your|this|the|all|any|ur|these) (?:\w+ ){0,2}${LIST}`,
  String.raw`refrain from (?:\w+ )?(?:contacting|emailing|e-mailing|mailing|messaging|writing to|sending|reaching out)`,
  String.raw`(?:i'd|i would|we'd|we would|i want to|we want to|i wish to|i'd like to|please|kindly) (?:like to |love to |prefer to )?opt (?:me |us )?out`,
  String.raw`opt(?:ing)? (?:me |us )?out of (?:any |all |these |further |future |your |this |the )(?:\w+ ){0,2}(?:communications?|emails|e-mails|mails|messages|marketing|outreach|contact|list|mailings?|sequences?|campaigns?)`,
  String.raw`(?:delete|erase|remove|purge|destroy|wipe|bin|scrub) (?:everything|whatever|anything|all|any|all the|the|what) (?:\w+ ){0,2}(?:you (?:have|hold|keep|store|got) |(?:data|info|information|details|records) (?:you (?:have|hold|keep|store) )?)(?:on|about|of) (?:me|us)`,
  String.raw`you (?:have|hold|keep|store|got) (?:on|about) (?:me|us),? (?:please |just |kindly )?(?:delete|erase|remove|purge|destroy|wipe|bin|scrub) it`,
  String.raw`(?:lose|ditch|bin|scrap|drop|forget|shred|trash) (?:my|our) (?:e-?mail(?: address)?|address|(?:phone |mobile )?number|details|contact(?: details)?|data|info)`,
  String.raw`(?:i'd|i would|we'd|we would) (?:like|prefer|rather) not to (?:get|receive|be (?:contacted|emailed|e-mailed|sent|added))|(?:get|receive|see) any more of (?:these|them|those|your)`,
  String.raw`drop (?:me|us) (?:from|off)|(?:unlist|delist|de-list) (?:me|us|this|my)|no interest in (?:any )?(?:further|more|future|your) (?:\w+ )?(?:emails|e-mails|mails|messages|contact|outreach|communications?)`,
  // Spam reports and threats, and the regulator ("reported as spam", "I'll report you to the ICO").
  String.raw`(?:report|reporting|reported|mark|marking|marked|flag|flagging|flagged|send|sending|treat|treating|file|filing) (?:\S+ ){0,4}(?:as|to) (?:spam|junk)`,
  String.raw`(?:i'll|i will|i'm going to|i am going to|we'll|we will|i shall|gets|get) (?:be )?report(?:ed|ing)?(?: (?:you|this|it|your company|them))?(?= ?[.!,;]|$)`,
  String.raw`(?:complain|complaint|report|reporting|escalate|escalating|lodge|lodging) (?:\S+ ){0,5}(?:to|with) the (?:ico|information commissioner|data protection (?:authority|regulator|commissioner)|regulator|ftc)`,
  // An address that must not be used, an unsubscribe not honoured, crossed off, kept off, the blocklists' operators as a threat.
  String.raw`(?:this|my|our|that) (?:e-?mail )?(?:address|inbox|mailbox) (?:should|must|may|is to) not be (?:contacted|emailed|e-mailed|mailed|used|added)`,
  String.raw`(?:i|we) (?:already )?(?:unsubscribed|opted out|clicked (?:\w+ ){0,2}(?:unsubscribe|opt-?out))[^.!?\n]{0,80}(?:still|again|keep|kept|continue)`,
  String.raw`hono(?:u)?r (?:my|our|the|that|this|it) (?:\w+ )?(?:unsubscribe|opt-?out|removal)?`,
  String.raw`(?:cross|strike|scratch|knock|rub) (?:me|us|my name|our names?|this address) (?:off|out)`,
  String.raw`(?:keep|leave) (?:me|us|this address) (?:off|out of) (?:your|the|any|all) (?:\w+ ){0,2}${LIST}`,
  String.raw`not on (?:your|any of your|any) (?:\w+ )?(?:list|lists|mailing list|database)(?:,)? (?:please|thanks|thank you)`,
  String.raw`(?:goes|go|going|sent|send|sending|report|reporting|forward|forwarding|submit|submitting)(?: \S+){0,4} (?:to )?(?:spamhaus|spamcop)`,
  String.raw`(?:remove|delete|erase|purge) (?:them|those|these|it) (?:from|off|out of) (?:your|all your|all of your|the) (?:\w+ )?${LIST}`,
  // Third parties and whole companies: "remove Connor from your distribution list", "remove all acme.com addresses from your database", "make sure I'm not on any of your sequences".
  String.raw`(?:remove|delete|take|drop|strike|erase|purge|scrub|exclude) (?:\S+ ){1,5}(?:from|off|out of) (?:your|this|ur|all|any|all of your|all your|these) (?:\w+ ){0,2}${LIST}`,
  String.raw`(?:make sure|ensure|see to it that|check that) (?:(?:i'm|i am|we're|we are|i|we|he|she|they)(?:'re| are| is)? (?:\w+ )?(?:not|never|no longer|aren't|isn't|won't|don't) (?:be )?(?:on|in|get|getting|hear|contacted|emailed)|(?:nobody|no one|none of us) (?:\w+ )?(?:is|are|gets?|will be|hears?) (?:\w+ )?(?:on|contacted|emailed|e-mailed|mailed|from you))`,
  String.raw`(?:f[u*]{1,4}c?k|f\*{2,4}|piss|bugger|sod|p\*{3,4}) off`,
  // Not wanting, ceasing, a "do not contact" list: "I don't want these emails anymore", "cease all further emails", "add me to your do-not-contact list".
  String.raw`(?:don't|do not|dont|no longer) (?:want|wish|need|care) (?:to (?:receive|get|see|be sent) |any |these |your |this |those |more |further )(?:\w+ ){0,2}(?:emails|e-mails|mails|messages|correspondence|communications?|newsletters?|spam|pitches|updates|offers|from you)`,
  String.raw`(?:don't|do not|no longer) (?:wish|want) to (?:receive|be sent|get) (?:any|further|more|these|your|this|emails|e-mails|mails|messages|correspondence)`,
  String.raw`(?<!(?:we|i|they|to|will|should|must|cannot|can't|didn't) )(?:cease|discontinue|halt) (?:all |any )?(?:further |future )?(?:emails|e-mails|mails|messages|correspondence|communications?|contact|outreach|sending|emailing|mailing|contacting|messaging|writing)`,
  String.raw`(?:^|(?<=[.!?;] ))(?:please |just |so |now )?stop(?: it| now| already| this)?(?= ?[.!]+(?: |$)|$)`,
  String.raw`not (?:hearing|receiving|getting|being (?:contacted|emailed|e-mailed)) (?:from you|anything|any more|anymore|again|further|these|this)`,
  String.raw`do-not-(?:contact|email|e-mail|mail|call)|(?:do not|don't) (?:contact|email|e-mail|mail|call) (?:list|register)|(?:suppression|blacklist|block) list|blacklist (?:me|us|my|our|this)|block (?:me|us|my|our|this) (?:address|e-?mail|domain)`,
  String.raw`no (?:further|more) (?:correspondence|communications?|contact of any kind)`,
  // Enough of it: "stop with the emails", "enough with the follow-ups", "Unsubscribe." or "Please cease." as a sentence of its own.
  String.raw`(?:stop|enough|quit|done) (?:with )?(?:the|these|your|all the|all these|this|all this|all your) (?:\w+ )?(?:emails|e-mails|mails|messages|follow-ups|follow ups|followups|spam|pitches|sequences?|nonsense)`,
  String.raw`(?<!(?:we|i|they|to|will|should|must|cannot|can't|didn't) )stop sending (?:stuff|anything|things|them|it|more|any|this|that)`,
  String.raw`(?:^|(?<=[.!?;,] ))(?:please |pls |kindly |just )?(?:unsubscribe|remove|cease|desist)(?: (?:me|us|it|this))?(?= ?[.!]+(?: |$)|$)`,
  String.raw`(?:don't|do not|dont) want (?:any )?more(?= ?[.!,]|$)`,
  // Asking us not to: "I'd appreciate it if you stopped emailing me", "don't bother emailing me again", "consider this my request to be removed".
  String.raw`you (?:stopped|stop|ceased|quit|would stop|could stop) (?:\w+ )?(?:emailing|e-mailing|contacting|messaging|mailing|sending|writing|reaching out|following up)`,
  String.raw`(?:prefer|rather|like|want|ask|need|appreciate it if|grateful if) you (?:to )?(?:not|never|didn't|did not|don't|do not|stopped|stop|no longer) (?:\w+ )?(?:email|e-mail|mail|contact|message|write|send|follow|reach|bother)`,
  String.raw`(?:do not|don't|dont|never|please don't) (?:ever )?(?:bother )?(?:emailing|contacting|writing|messaging|following up|reaching out|follow up|reach out|email|contact|message|write)(?: (?:me|us|to me|with me|to us|with us))? (?:again|anymore|any more|in future|in the future)`,
  String.raw`(?:my|this|a|formal) request (?:to be|for) (?:\w+ )?(?:removed|removal|deleted|deletion|erasure|unsubscribed|taken off)|(?:i|we) (?:hereby )?request (?:to be (?:removed|deleted|unsubscribed|taken off)|that (?:i|we|my|our) |the (?:removal|deletion|erasure)|(?:removal|deletion|erasure))`,
  // Formal erasure and objection: "withdraw my consent", "object to the processing of my data".
  String.raw`(?:withdraw|withdrawing|revoke|revoking) (?:my|our|any|all) (?:\w+ )?consent|consent (?:is |has been )?(?:withdrawn|revoked)`,
  String.raw`(?:i|we) (?:hereby )?object to (?:\w+ ){0,4}(?:processing|use|marketing|contact|profiling)`,
  String.raw`(?:erasure|deletion) of (?:all )?(?:my|our) (?:\w+ )?(?:data|details|information|records)`,
];

const DE = [
  String.raw`(?:streichen|entfernen|loschen|nehmen|tragen) sie (?:\S+ ){1,6}(?:aus|von) (?:ihren|ihrem|ihrer|dem|der|den|allen|sämtlichen|samtlichen) (?:\w+ )?(?:verteilern?|listen?|datenbank(?:en)?|kartei|adressbestand|systemen?|crm)`,
  String.raw`(?:wunschen|wunsche|wollen|will|mochten|mochte) (?:\w+ ){0,2}keine (?:\w+ ){0,2}(?:werbung|werbemails|werbe-e-mails|e-?mail-?werbung)`,
  // "Kunden aus Verteilern austragen" is about their customers: the verb needs me, us or a plea.
  String.raw`(?:mich|uns|bitte) (?:\w+ ){0,2}(?:abmelden|austragen|abbestellen)|(?:abmelden|austragen|abbestellen)(?: bitte)?(?= ?[.!]|$)`,
  String.raw`nicht mehr (?:angeschrieben|kontaktiert|angemailt|angerufen|belastigt) (?:zu )?werden`,
  // "Tragen Sie mich ein", "nehmen Sie mich in den Verteiler auf", "melden Sie mich an" sign up: those verbs need their "aus", "ab" or "von".
  String.raw`(?:streichen|entfernen|loschen) sie (?:mich|uns|meine (?:e-?mail-?adresse|adresse|daten|kontaktdaten))|(?:tragen|melden|nehmen) sie (?:mich|uns|meine (?:e-?mail-?adresse|adresse|daten|kontaktdaten)) (?:\w+ ){0,4}(?:aus|ab|raus|heraus|von)(?![a-z])`,
  String.raw`(?:mich|uns|meine (?:e-?mail-?adresse|adresse|daten|kontaktdaten)) (?:bitte )?(?:aus|von) (?:\w+ ){0,3}(?:verteiler|liste|mailingliste|datenbank|kartei|newsletter)`,
  String.raw`(?:aus|von) (?:dem|der|ihrem|ihrer|eurem|eurer|diesem|dieser) (?:\w+ )?(?:verteiler|liste|mailingliste|newsletter|datenbank|kartei) (?:\w+ )?(?:nehmen|entfernen|streichen|loschen|austragen)`,
  String.raw`(?:mochte|will|mochten|wollen) (?:\w+ ){0,3}(?:entfernt|geloscht|ausgetragen|abgemeldet) werden`,
  String.raw`(?:mochte|will|wollen|mochten|wunsche|wunschen) (?:\w+ ){0,2}keine (?:\w+ ){0,2}(?:e-?mails|mails|nachrichten|werbung|werbemails|newsletter|zusendungen|anrufe) (?:mehr )?(?:erhalten|bekommen|empfangen)`,
  String.raw`bitte keine (?:weiteren |weitere )?(?:e-?mails|mails|nachrichten|werbung|anfragen|kontaktaufnahmen?)`,
  String.raw`keine weiteren? (?:e-?mails|mails|nachrichten|kontaktaufnahmen?|anschreiben|werbung|zusendungen|anfragen|angebote|newsletter|werbemails|kontakte)`,
  String.raw`(?:bitte|ersuche|bitten) (?:sie )?(?:um|die) (?:sofortige |umgehende )?(?:entfernung|loschung|austragung|abmeldung|streichung)|(?:entfernung|austragung|abmeldung|streichung|loschung) (?:\w+ ){0,2}(?:aus|von) (?:\w+ ){0,2}(?:verteiler|liste|datenbank|kartei|system|crm|newsletter|mailingliste)`,
  String.raw`(?:mich|uns) nicht (?:mehr|weiter|langer|erneut|wieder) (?:\w+ )?(?:anzuschreiben|zu kontaktieren|anzumailen|zu mailen|zu belastigen|anzurufen|zu schreiben)|verbitte (?:mir|uns)`,
  String.raw`(?:verwenden|nutzen|benutzen|speichern) sie (?:meine|unsere) (?:\w+ )?(?:adresse|daten|e-?mail-?adresse|kontaktdaten) (?:bitte )?nicht (?:mehr|weiter|langer)`,
  String.raw`(?:nehmen|streichen|loschen|entfernen|tragen) sie (?:\S+ ){1,6}(?:aus|von) (?:ihrem|ihrer|ihren|dem|der|eurem|eurer|allen|diesem|dieser) (?:\w+ )?(?:verteiler|liste|listen|mailingliste|datenbank|kartei|newsletter|system|systemen|crm|adressbuch|kontakten|adressbestand)`,
  String.raw`(?:will|mochte|mochten|wollen) (?:\w+ ){0,3}nichts mehr (?:\w+ )?(?:horen|lesen|bekommen|erhalten|wissen)|(?:kein|keinerlei) interesse an (?:weiteren|kunftigen|ihren|diesen) (?:\w+ )?(?:mails|e-?mails|nachrichten|zusendungen|kontakten?|angeboten|anfragen)`,
  String.raw`von (?:weiteren|kunftigen|jeglichen|erneuten) (?:\w+ )?(?:kontakt\w*|e-?mails|mails|anfragen|anschreiben|zusendungen|nachrichten|werbung\w*) (?:\w+ )?(?:abstand|abzusehen|ab)(?![a-z])`,
  String.raw`unterlassen sie|unterlassen (?:\w+ )?(?:weitere|kunftige|jegliche|diese)|(?:horen sie|hort|horen sie bitte) (?:\w+ )?auf(?= ?[,.!]|$| mit| mich| uns| mir)`,
  String.raw`keine (?:e-?mails|mails|nachrichten|werbung) mehr`,
  String.raw`(?:senden|schicken|mailen|schreiben) sie (?:mir|uns) (?:bitte )?(?:nichts|keine \w+) mehr|(?:nichts|keine \w+) mehr (?:senden|schicken|zusenden|zuschicken)`,
  String.raw`(?:schluss|genug) (?:mit|der|von) (?:\w+ )?(?:mails|e-?mails|nachrichten|werbung|spam|anfragen|werbemails)`,
  String.raw`(?:aus|von) (?:dem|der|ihrem|ihrer|eurem|eurer|diesem|dieser|allen|ihren) (?:\w+ )?(?:system|crm|adressbuch|kontakte|kontaktliste|adressliste|e-?mail-?verteiler|dateien|datei|adressbestand|systemen) (?:\w+ )?(?:nehmen|entfernen|streichen|loschen|austragen)`,
  String.raw`(?:^|(?<=[.!?;,] ))bitte (?:entfernen|loschen|austragen|abmelden|streichen)(?= ?[.!]|$)`,
  String.raw`(?:kontaktieren|schreiben|anschreiben|mailen|belastigen|kontakten) sie (?:mich|uns|mir) (?:bitte )?(?:nicht mehr|nie wieder|nicht wieder|nicht erneut|nicht)`,
  String.raw`(?:nicht mehr|nie wieder) (?:kontaktieren|anschreiben|anmailen|mailen|schreiben)`,
  String.raw`(?:widerspreche\w*|widerspruch gegen) (?:\w+ ){0,6}(?:verwendung|nutzung|verarbeitung|werbung|werbezweck\w*|speicherung|daten|kontaktaufnahme)`,
  String.raw`(?:loschen sie|loschung) (?:\w+ ){0,3}(?:meiner|meine|meinen|unserer) (?:\w+ )?(?:daten|adresse|e-?mail-?adresse|kontaktdaten)`,
  String.raw`(?:meine|meiner|unsere) (?:\w+ ){0,2}(?:daten|adresse|e-?mail-?adresse|kontaktdaten) (?:\w+ ){0,3}(?:zu )?loschen`,
  String.raw`art\.? ?(?:17|21) (?:dsgvo|ds-gvo)`,
  String.raw`verschonen sie (?:mich|uns)|(?:lassen sie|lasst) (?:mich|uns) (?:\w+ )?in ruhe|(?:horen sie|hort) (?:\w+ )?auf,? (?:\w+ ){0,3}(?:zu )?(?:schreiben|mailen|senden|schicken|kontaktieren|belastigen)`,
  String.raw`(?:tragen|nehmen|streichen|loschen|entfernen|melden) sie (?:\w+ ){0,3}(?:diese|meine|unsere|die) (?:e-?mail-?)?(?:adresse|kontaktdaten|daten|mailadresse)`,
  String.raw`(?:tragen) sie (?:\S+ ){1,5}aus(?= ?[.!,;]|$)`,
  String.raw`als (?:spam|junk|werbung) (?:melden|markieren|gemeldet|markiert|einstufen|eingestuft|kennzeichnen)|(?:melde|markiere) (?:\w+ ){0,3}als spam`,
  String.raw`datenschutz(?:aufsicht|behorde|beauftragte\w*)|aufsichtsbehorde|landesdatenschutz\w*`,
  String.raw`(?:widerrufe|widerrufen) (?:\w+ ){0,3}(?:einwilligung|zustimmung|einverstandnis)|(?:einwilligung|zustimmung) (?:\w+ ){0,3}(?:widerrufe|widerrufen)`,
  String.raw`recht auf (?:loschung|vergessenwerden|widerspruch)|(?:um|die) loschung (?:\w+ ){0,3}(?:daten|adresse|kontaktdaten)`,
];

const FR = [
  String.raw`desinscri\w*|desabonn\w*|desinscription`,
  String.raw`(?:je souhaite|je veux|je voudrais|nous souhaitons) (?:etre )?(?:retire|retiree|supprime|supprimee|desinscrit|desinscrite)s?`,
  String.raw`(?:retirez|supprimez|enlevez|rayez|effacez|sortez|otez)(?:-| )(?:moi|nous|mon adresse|mon e-?mail|mes (?:coordonnees|donnees))`,
  String.raw`(?:me |m')(?:retirer|supprimer|enlever|effacer|rayer|sortir) (?:de|du|des)`,
  String.raw`(?:^|(?<=[.!,;] ))(?:et )?(?:plus de|assez de|stop aux|fini les) (?:\w+ )?(?:mails|e-mails|emails|messages|relances|courriels|sollicitations)`,
  String.raw`ne (?:me |m'|nous )?(?:contactez|ecrivez|envoyez|sollicitez|relancez) plus`,
  String.raw`ne (?:plus|pas) (?:me |m'|nous )?(?:contacter|ecrire|solliciter|envoyer|relancer|recevoir)`,
  String.raw`(?:cessez|arretez|arreter|cesser) (?:de |d')(?:m'|me |nous )?(?:ecrire|envoyer|contacter|solliciter|spammer|relancer)`,
  String.raw`ne (?:veux|voulons|souhaite|souhaitons|desire) plus (?:\w+ ){0,3}(?:recevoir|mails|e-mails|emails|messages|courriels|etre contacte\w*|etre sollicite\w*)`,
  String.raw`(?:supprimer|effacer|suppression|effacement) (?:\w+ ){0,3}(?:mes|de mes|mon) (?:donnees|coordonnees|adresse|e-?mail)`,
  String.raw`ne plus etre (?:contacte|sollicite|relance)\w*`,
  String.raw`(?:ne (?:veux|voulons|souhaite|souhaitons) plus|plus jamais) (?:entendre parler de vous|avoir de vos nouvelles|rien recevoir)`,
  String.raw`ne (?:plus|pas|jamais) (?:utiliser|conserver|exploiter|garder) (?:mon|mes|notre|nos) (?:adresse|donnees|coordonnees|e-?mail)`,
  String.raw`(?:cesser|cessez|arreter|arretez) (?:\w+ )?(?:tout|tous|toute|toutes|vos|les|ces) (?:\w+ )?(?:envois?|mails|e-mails|emails|messages|sollicitations?|relances?|contacts?|courriels|communications?|prospections?)`,
  String.raw`droit (?:a l'effacement|a l'oubli|d'opposition)`,
  String.raw`(?:supprimer|effacer|suppression|effacement|retirer|retrait) (?:[\w']+ ){0,4}(?:mes|de mes|mon|ma) (?:\w+ )?(?:donnees|coordonnees|adresse|e-?mail|informations)`,
  String.raw`(?:je )?(?:m'oppose|nous nous opposons|m'opposer) (?:a|au|aux) (?:[\w']+ ){0,4}(?:prospection|traitement|utilisation|usage|donnees|sollicitation|demarchage|envoi|communications?)`,
  String.raw`(?:supprim|retir|effac|enlev|ray|sort)\w* (?:\S+ ){1,5}(?:de|des) (?:vos|votre|ta|tes|la|cette) (?:\w+ )?(?:fichiers?|listes?|bases?|base de donnees|liste de diffusion|mailing|crm|contacts)`,
  String.raw`(?:signal|marqu|class|report)\w* (?:\S+ ){0,4}(?:comme|en) (?:spam|indesirable|courrier indesirable|pourriel)`,
  String.raw`(?:saisir|saisirai|saisirons|plainte|signaler|signalerai) (?:\S+ ){0,4}(?:la )?cnil|(?:aupres de|a) la cnil`,
  String.raw`(?:retire|retirer|retrait de) (?:mon|notre) consentement`,
  String.raw`(?:laissez|foutez|fichez)(?:-| )(?:moi|nous) (?:tranquille|en paix|la paix)|(?:arretez|cessez)(?= ?[.!,]|$)|(?:arretez|cessez) (?:ca|cela|tout|vos (?:\w+ )?(?:mails|e-mails|emails|messages|relances|envois))`,
  String.raw`ne (?:m'|me |nous )?(?:envoyez|ecrivez|contactez) (?:\w+ )?(?:plus|jamais)`,
];

const ES = [
  String.raw`no (?:volver a )?(?:contactarme|contactarnos|escribirme|escribirnos|enviarme|enviarnos|mandarme|mandarnos|molestarme|molestarnos)`,
  String.raw`(?:dar\w*|den\w*|dad\w*|dame|denme|solicito|quiero|pido|tramiten) (?:de )?(?:la )?baja`,
  String.raw`borrame|borrenme|borradme|eliminame|eliminenme|eliminadme|quitame|quitenme|quitadme|sacame|saquenme|sacadme|excluyanme|excluyeme`,
  String.raw`(?:borren|borrad|eliminen|eliminad|quiten|quitad|saquen|sacad|elimine|borre|quite|saque|excluya|elimina|borra|quita|saca) (?:mis|mi|nuestros|nuestra|nuestro|este correo|esta direccion)`,
  String.raw`(?:elimin|borr|quit|sac|excluy)\w* (?:\w+ ){0,3}de (?:su|vuestra|tu|la) (?:lista|base de datos|listado)`,
  String.raw`no (?:volver a )?ser contactad[oa]s?`,
  String.raw`(?:me|nos) (?:borren|borreis|eliminen|quiten|saquen|den de baja|deis de baja)`,
  String.raw`(?:borrar|eliminar|suprimir|supresion de) (?:\w+ ){0,2}(?:mis datos|mi correo|mi direccion|mi email|mi e-mail|mis datos personales)`,
  String.raw`(?:quiero|deseo|queremos) ser (?:eliminad[oa]s?|borrad[oa]s?|dad[oa]s? de baja|excluid[oa]s?)`,
  String.raw`no me (?:escriban|escribas|escribais|envien|envies|mandes|manden|contacten|contactes|molesten)`,
  String.raw`(?:dejen|deja|dejad|dejad) de (?:enviarme|escribirme|mandarme|contactarme|molestarme|enviar|escribir|mandar|molestar|contactar)`,
  String.raw`no (?:quiero|deseo) (?:recibir|que me (?:escriban|contacten|envien))`,
  String.raw`no (?:vuelvan|vuelvas|volvais) a (?:escribir|contactar|enviar|llamar)`,
  String.raw`dej\w* de (?:enviarme|escribirme|mandarme|contactarme|molestarme|enviarnos|escribirnos|mandarnos|contactarnos)|(?:prefiero|preferiria|preferimos|prefeririamos) no (?:recibir|ser contactad|que me)|no autorizo (?:\w+ ){0,3}(?:datos|correo|e-?mail|envio|tratamiento|uso)`,
  String.raw`no (?:quiero|queremos) saber nada (?:mas )?de (?:ustedes|vosotros|usted|ti|su empresa|vuestra empresa)|nunca mas (?:me |nos )?(?:escriban|envien|manden|contacten|escribas|mandes|envies|escribais)`,
  String.raw`(?:elimin|borr|quit|sac|excluy)\w* (?:\S+ ){1,6}de (?:sus|vuestros|tus) (?:\w+ )?(?:envios|comunicaciones|correos|mailings?|campanas|newsletters?)`,
  String.raw`no (?:me|nos) (?:incluyan|incluya|incluyas|incluyais|agreguen|anadan|pongan|metan) en (?:mas|sus|ninguna|ningun|otras?|otros?|vuestras?|vuestros?)|(?:me|nos) (?:excluyan|excluya|excluyas|excluyais) de`,
  String.raw`(?:basta|suficiente) (?:de|con) (?:\w+ )?(?:correos|emails|e-mails|mails|mensajes|spam)|no mas (?:correos|emails|e-mails|mails|mensajes|spam)`,
  String.raw`derechos? (?:de |a la |al )?(?:supresion|oposicion|cancelacion|olvido)`,
  String.raw`(?:me opongo|nos oponemos) (?:a|al) (?:\w+ ){0,4}(?:tratamiento|uso|envio|comunicaciones|publicidad|datos)`,
  String.raw`(?:retiro|revoco|retirar|revocar) (?:mi|nuestro|el) consentimiento`,
  String.raw`no (?:vuelvan|vuelvas|volvais|vuelva) a (?:escrib|contact|envi|llam|mand|molest|poner)\w*`,
  String.raw`(?:marc|report|denunci|clasific)\w* (?:\S+ ){0,4}como (?:spam|correo no deseado)|(?:denuncia|reclamacion|queja) (?:\S+ ){0,4}(?:aepd|agencia (?:espanola )?de proteccion de datos)|(?:a|ante) la aepd`,
  String.raw`(?:dejame|dejenme|dejadme|deje) en paz|(?:para|pare|paren|parad) de (?:enviar|escribir|mandar|molestar|contactar)\w*`,
  String.raw`(?:elimin|borr|quit|sac|excluy|suprim)\w* (?:\S+ ){1,5}de (?:su|sus|vuestra|vuestras|tu|tus) (?:\w+ )?(?:lista|listas|base de datos|bases de datos|listado|ficheros?|registros?|crm)`,
];

const NL = [
  String.raw`(?:hou|houd|houdt) (?:\w+ )?op met (?:dat |die |het |jullie |je |uw )?(?:ge)?(?:mail|mails|mailen|e-?mails|mailtjes|spam|spammen)`,
  String.raw`uitschrijv\w*|uitgeschreven|afmelden|afgemeld|schrijf (?:me|mij|ons) (?:uit|af)|meld (?:me|mij|ons) af`,
  String.raw`verwijder (?:me|mij|ons|mijn (?:e-?mail(?:adres)?|adres|gegevens|naam))`,
  String.raw`(?:mij|me|ons|mijn (?:e-?mailadres|adres|gegevens)) (?:\w+ ){0,4}(?:verwijderen|verwijderd|verwijdert|schrappen|wissen|uitschrijven)`,
  String.raw`(?:haal|zet) (?:me|mij|ons|mijn (?:e-?mail(?:adres)?|adres|gegevens|naam)) (?:\w+ ){0,2}(?:van|uit|af) (?:de|jullie|uw|je|deze|die|dat|het|dit) (?:\w+ )?(?:lijst|mailinglijst|bestand|database|verzendlijst)`,
  String.raw`(?:wil|wens|willen) (?:graag )?(?:\w+ ){0,2}(?:verwijderd|uitgeschreven|afgemeld) (?:worden|hebben)`,
  String.raw`(?:van|uit) (?:de|jullie|uw|je|deze) (?:\w+ )?(?:lijst|mailinglijst|verzendlijst|bestand|database) (?:af|uit|halen|verwijderen)`,
  String.raw`niet meer (?:\w+ ){0,2}(?:gemaild|ge-?e-?maild|benaderd|gecontacteerd|lastiggevallen)`,
  String.raw`(?:mij|me|ons)? ?niet (?:meer|langer) (?:te )?(?:mailen|e-?mailen|benaderen|contacteren|lastigvallen|sturen)|(?:verwijdering|wissing|uitschrijving) (?:van )?(?:al )?(?:mijn|onze) (?:\w+ )?(?:gegevens|e-?mailadres|adres|persoonsgegevens)`,
  String.raw`(?:me|mij|ons|mijn (?:e-?mail(?:adres)?|adres|gegevens|naam)) (?:\w+ )?(?:van|uit|af) (?:de|jullie|uw|je|deze) (?:\w+ )?(?:lijst|mailinglijst|bestand|bestanden|database|verzendlijst|systeem|systemen|crm) (?:\w+ ){0,2}(?:halen|verwijderen|schrappen|afhalen|wissen)`,
  String.raw`(?:wil|willen|wens) (?:\w+ )?(?:niets|niks) meer (?:van (?:jullie|u|je) )?(?:ontvangen|horen|krijgen)|(?:stuur|stuurt) (?:me |mij |ons )?(?:\w+ )?(?:niets|niks) meer`,
  String.raw`genoeg (?:met|van) (?:\w+ )?(?:mails|e-?mails|berichten|mailtjes|spam)`,
  String.raw`geen (?:e-?mails|mails|berichten|mailtjes|mailings) meer`,
  String.raw`stuur (?:me|mij|ons) geen`,
  String.raw`(?:neem|neemt) geen contact (?:meer )?op`,
  String.raw`niet meer (?:te )?(?:mailen|benaderen|contacteren|e-?mailen|sturen|lastigvallen)`,
  String.raw`(?:stop|stopt|stoppen) (?:met )?(?:mailen|e-?mailen|sturen|benaderen|mailtjes)`,
  String.raw`(?:stop|stopt|hou op|houd op) met (?:het )?(?:sturen|versturen|mailen) (?:van )?(?:\w+ )?(?:mails|e-?mails|berichten|mailtjes|nieuwsbrieven)`,
  String.raw`(?:mijn|onze|al mijn|al onze|alle) (?:\w+ )?(?:persoonsgegevens|gegevens|contactgegevens|e-?mailadres|adres|naam) (?:\w+ ){0,4}(?:te )?(?:verwijderen|wissen|schrappen)`,
  String.raw`(?:maak|maken) (?:ik |wij |we )?(?:hierbij )?bezwaar|bezwaar tegen (?:\w+ ){0,3}(?:gebruik|verwerking|marketing)|recht op (?:vergetelheid|verwijdering|bezwaar|gegevenswissing)`,
  String.raw`stop (?:er )?(?:ermee|mee|nu mee)|(?:hou|houd|houdt) (?:er )?(?:nu )?(?:mee )?op(?= ?[.!,]|$| met (?:mailen|sturen|e-?mailen|benaderen))|laat (?:me|mij|ons) (?:\w+ )?met rust`,
  String.raw`als (?:spam|ongewenst) (?:markeren|gemarkeerd|melden|gemeld|aanmerken|aangemerkt|rapporteren|aangeven)|(?:markeer|meld) (?:\w+ ){0,3}als spam`,
  String.raw`autoriteit persoonsgegevens`,
  String.raw`(?:trek|trekken) (?:\w+ ){0,2}(?:toestemming|instemming) in|(?:toestemming|instemming) (?:\w+ ){0,2}in(?:trekken|getrokken)`,
  String.raw`(?:verwijder|verwijderen|haal|schrap|schrappen)\w* (?:\S+ ){1,5}(?:uit|van) (?:uw|jullie|je|de|deze) (?:\w+ )?(?:lijst|lijsten|mailinglijst|verzendlijst|bestand|database|systeem|crm)`,
];

const PT = [
  String.raw`nao (?:voltar a )?(?:me|nos) (?:contatar|contactar|enviar|mandar|escrever|incomodar)`,
  String.raw`descadastr\w*|cancelar (?:minha |a )?inscricao|sair da (?:sua |vossa )?lista`,
  String.raw`(?:remover|remova|removam|retire|retirem|tire|tirem|exclua|excluam|apague|apaguem|deletem)[- ](?:o )?(?:meu|minha|meus|minhas|me)`,
  String.raw`me (?:remova|removam|tire|tirem|exclua|excluam|descadastre|descadastrem|retire|retirem|remover|excluir|retirar|tirar|descadastrar|apagar)`,
  String.raw`(?:parassem|deixassem|parar|deixar) de (?:me )?(?:enviar|mandar|escrever|contatar|contactar|ligar)|(?:prefiro|preferiria|preferimos) nao (?:receber|ser contatad|que me)|nao autorizo (?:\w+ ){0,3}(?:dados|e-?mail|envio|tratamento|uso)`,
  String.raw`(?:pare|parem|chega) (?:com|de) (?:esses|estes|os|seus|tantos|tanto) (?:e-?mails|mensagens|spam)|me (?:esquece|esqueca|esquecam)|esquecam-me|nunca mais (?:me |nos )?(?:mande|mandem|envie|enviem|escreva|escrevam|contate|contatem|procure|procurem)`,
  String.raw`nao (?:me|nos) (?:incluam|inclua|incluir|adicionem|coloquem) (?:em|na|no|nas|nos|mais)`,
  String.raw`chega de (?:\w+ )?(?:e-?mails|mensagens|spam)|(?:sem|nada de) mais (?:e-?mails|mensagens)`,
  String.raw`(?:exclusao|remocao|eliminacao) (?:dos|de|do|da) (?:meus|meu|minha|minhas) (?:dados|e-?mail|contato|cadastro)`,
  String.raw`(?:excluir|apagar|remover|eliminar|deletar) (?:os |o )?(?:meus|minhas|meu|minha) (?:dados|e-?mail|contato|informacoes|cadastro)`,
  String.raw`nao me (?:envie|enviem|mande|mandem|contate|contatem|procure|procurem|escreva|escrevam|perturbe|perturbem)`,
  String.raw`nao (?:envie|enviem|mande|mandem) mais`,
  String.raw`(?:parem|pare|deixem|deixe) de (?:me )?(?:enviar|mandar|escrever|contatar|ligar|perturbar)`,
  String.raw`(?:quero|gostaria de|desejo|queremos) ser (?:removid[oa]s?|excluid[oa]s?|descadastrad[oa]s?|retirad[oa]s?)`,
  String.raw`nao (?:quero|desejo) (?:mais )?(?:receber|ser contatad\w)`,
  String.raw`nao (?:me )?(?:contatar|contactar|enviar|mandar|escrever|ligar|procurar|incomodar) (?:\w+ )?mais`,
  String.raw`me (?:tira|tire|tirem|retira|exclui|apaga)|(?:tira|tire|tirem|retira|exclua|excluam|apague|apaguem|removam|remova) (?:\S+ ){0,4}(?:da|de|do) (?:sua|vossa|tua|seu|vosso|teu|lista|base|cadastro|mailing)`,
  String.raw`(?:para|pare|parem|parar) de (?:me )?(?:enviar|mandar|escrever|contatar|contactar|ligar|perturbar|encher)|(?:me )?(?:deixa|deixe|deixem) em paz`,
  String.raw`nao (?:voltem|volte|volta|voltar|voltarem) a (?:me )?(?:enviar|mandar|escrever|contatar|contactar|ligar)|nao (?:me )?(?:enviem|envie|mandem|mande|contatem|contate|escrevam|escreva) (?:\w+ )?(?:nunca )?mais`,
  String.raw`(?:marcar|marco|marquei|vou marcar|denunciar|reportar|denunciarei)\w* (?:\S+ ){0,4}como spam|(?:anpd|cnpd)`,
  String.raw`(?:solicito|peco|requeiro|exijo) (?:a |o )?(?:eliminacao|exclusao|remocao|apagamento|supressao|anonimizacao)|(?:eliminacao|exclusao|remocao|apagamento) (?:de |dos |das )?(?:todos os |todas as )?(?:meus|minhas) (?:\w+ )?(?:dados|informacoes|contatos)`,
  String.raw`(?:me oponho|nos opomos|oponho-me) (?:a|ao) (?:\w+ ){0,4}(?:tratamento|uso|envio|comunicacoes|marketing|dados)|(?:revogo|retiro|revogar) (?:o |meu |o meu )?consentimento|direito (?:ao esquecimento|de oposicao|a eliminacao|de eliminacao)`,
];

/** "Stop. Just stop.": nothing but stops. */
const ONLY_STOP = /^(?:(?:just |please |pls |now )?stop\W{0,5}){1,4}$/;

/** A message that is nothing but the request ("Stop", "Unsubscribe!", "remove"). */
const WHOLE =
  /^\W{0,5}(?:please |pls |bitte |graag |por favor )?(?:stop|stopp|unsubscribe|remove|remove me|unsubscribe me|abmelden|austragen|desinscription|desinscrire|baja|uitschrijven|afmelden|descadastrar|descadastre)\W{0,5}(?:please|pls|thanks|thank you|danke|bitte|merci|svp|s'il vous plait|gracias|por favor|bedankt|graag|aub|alstublieft|obrigad[oa])?\W{0,5}$/u;

/**
 * The patterns in several regexes of about twenty each: one union of them all
 * grows past the size V8 compiles to machine code and runs interpreted, many
 * times slower on every reply.
 */
const ALL = [...EN, ...DE, ...FR, ...ES, ...NL, ...PT];
const CHUNK = 20;
const REQUESTS = Array.from({ length: Math.ceil(ALL.length / CHUNK) }, (_, i) => anyOf(ALL.slice(i * CHUNK, (i + 1) * CHUNK), 'g'));

/** "Don't email me, call me instead": a channel preferred, not a removal. */
const OTHER_CHANNEL =
  /^[^.!?]{0,12}\b(?:call|phone|ring|text|whatsapp|linkedin|instead|rather|anrufen|rufen|appelez|llame|llamame|bel|ligue|liga)\b/;

/** A time limit right after the request: "don't contact me until Q3", "bis Oktober", "avant septembre". */
const UNTIL =
  /^,? ?(?:(?:again|anymore|any more|wieder|mehr|plus|mas|meer|mais) )?(?:until|till|before|unless|bis|avant|jusqu|hasta|tot|ate|vor|antes)(?![a-z])/;

/** "I was about to hit unsubscribe", "no need to remove me": the words name a removal without asking for it. */
const HYPOTHETICAL =
  /(?:about to|going to|was gonna|almost|nearly|tempted to|thought about|thinking of|no need to|don't need to|do not need to|don't|do not|please don't|dont|never|no)(?: (?:hit|click|press|just))? $/;

/**
 * The key verbs of a removal, in their real forms: a token within a small
 * edit distance of one of them ("unsubscibe", "remvoe", "delte",
 * "abmleden") is read as that word. Only tokens of five letters or more,
 * with the same first letter and a similar length, are compared.
 */
const KEY_VERBS = [
  'unsubscribe',
  'unsubscribed',
  'unsubscribing',
  'remove',
  'removed',
  'removes',
  'removing',
  'remover',
  'remova',
  'removam',
  'delete',
  'deleted',
  'deletes',
  'deleting',
  'deletar',
  'deletem',
  'erase',
  'erased',
  'abmelden',
  'abgemeldet',
  'austragen',
  'ausgetragen',
  'abbestellen',
  'entfernen',
  'entfernt',
  'loschen',
  'geloscht',
  'desinscrire',
  'desinscrivez',
  'desinscrit',
  'desinscription',
  'desabonner',
  'desabonnez',
  'desabonne',
  'desabonnement',
  'supprimer',
  'supprimez',
  'eliminar',
  'eliminen',
  'eliminame',
  'borrar',
  'borren',
  'borrame',
  'uitschrijven',
  'uitgeschreven',
  'afmelden',
  'afgemeld',
  'verwijderen',
  'verwijder',
  'verwijderd',
  'descadastrar',
  'descadastre',
  'descadastrem',
  'descadastro',
  'excluir',
  'excluam',
];
/** Real words one slip away from a key verb, with another meaning: never mended. */
const NOT_TYPOS = new Set([
  'remote',
  'remotes',
  'removal',
  'removals',
  'deplete',
  'eliminate',
  'eliminated',
  'eliminates',
  'eliminer',
  'eraser',
  'anmelden',
  'anmeldet',
  'angemeldet',
  'auftragen',
  'angetragen',
]);
const KEY_SET = new Set(KEY_VERBS);
const BY_INITIAL = new Map<string, string[]>();
for (const verb of KEY_VERBS) BY_INITIAL.set(verb[0]!, [...(BY_INITIAL.get(verb[0]!) ?? []), verb]);

/** Optimal string alignment distance (a swap of two neighbours counts one), giving up past `max`. */
function slips(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** `folded` with each misspelt key verb replaced by the verb it nearly spells. */
export function mendTypos(folded: string): string {
  return folded.replace(/[a-z]{5,14}/g, (token) => {
    if (KEY_SET.has(token) || NOT_TYPOS.has(token)) return token;
    let found = token;
    let least = 3;
    for (const verb of BY_INITIAL.get(token[0]!) ?? []) {
      // A longer word than the verb with two slips is another word ("verwijdering" is not "verwijderen").
      const max = verb.length >= 10 && token.length <= verb.length ? 2 : 1;
      const d = slips(token, verb, max);
      if (d <= max && d < least) {
        least = d;
        found = verb;
      }
    }
    return found;
  });
}

/** Threats of a spam report or a complaint to the regulator count only when said, not asked ("do your emails get marked as spam?"). */
const THREAT_WORDS = /spam|junk|indesirable|pourriel|\bico\b|cnil|aepd|anpd|cnpd|datenschutz|aufsicht|autoriteit|regulator|commissioner/;

/** Words for the writer themself in the six languages: a question about removing others ("would an admin have to unsubscribe them?") asks about the product. */
const FIRST_PERSON =
  /(?<![a-z'])(?:i|me|my|we|us|our|ich|mich|mir|mein\w*|wir|uns|unser\w*|je|moi|mon|ma|mes|nous|nos|notre|yo|mi|mis|nosotros|ik|mij|mijn|wij|ons|onze|eu|mim|meu|minha|meus|minhas|nosso\w*|nossa\w*|this (?:e-?mail )?(?:address|inbox|mailbox))(?![a-z])/;
/** The writer as a verb's object, in the six languages. */
const OBJECT_PERSON = /(?<![a-z'])(?:me|us|mich|uns|moi|nous|mij|ons|mim|nos|this (?:e-?mail )?(?:address|inbox|mailbox))(?![a-z])/;
/** A question put to us as a request ("could you remove this address?", "können Sie …?", "pourriez-vous …?"). */
const ASKED_OF_YOU =
  /(?:can|could|would|will) you|please|kannst du|konnen sie|konnten sie|wurden sie|pourriez|pouvez|podria|podrian|puede|pueden|kunt u|kun je|wilt u|zou u|podem|pode|poderia|poderiam/;

/** Where each sentence of `folded` ends (its . ! ? or line break), found once per reply so every match looks it up in log time. */
function sentenceEnds(folded: string): number[] {
  const ends: number[] = [];
  for (let i = 0; i < folded.length; i++) if ('.!?\n'.includes(folded[i]!)) ends.push(i);
  return ends;
}

/** Whether the sentence that goes on at `at` closes with a question mark. */
function questionAt(folded: string, ends: number[], at: number): boolean {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo < ends.length && folded[ends[lo]!] === '?';
}

function asksWith(request: RegExp, folded: string, ends: number[]): boolean {
  request.lastIndex = 0;
  for (let m = request.exec(folded); m; m = request.exec(folded)) {
    // "Could staff opt out themselves, or would an admin have to unsubscribe them?" asks how the product works: a
    // question is a request only when the writer is in it ("can you remove me?", "how do I unsubscribe?").
    if (questionAt(folded, ends, m.index + m[0].length)) {
      // The writer as the object, before the verb as German and Dutch put it ("wilt u mij niet meer mailen?"), or anywhere after.
      const before = folded.slice(Math.max(0, m.index - 20), m.index);
      const after = folded.slice(m.index, m.index + m[0].length + 20);
      if (!OBJECT_PERSON.test(before) && !FIRST_PERSON.test(after) && !ASKED_OF_YOU.test(before + after)) continue;
    }
    if (THREAT_WORDS.test(m[0]) && questionAt(folded, ends, m.index + m[0].length)) continue;
    const before = folded.slice(Math.max(0, m.index - 40), m.index);
    // Requests phrased with their own negation ("don't email me", "bitte keine E-Mails", "no me escriban") are not cancelled by it.
    if (!carriesNegation(m[0]) && (HYPOTHETICAL.test(before) || negatedAt(folded, m.index, false))) continue;
    const after = folded.slice(m.index + m[0].length, m.index + m[0].length + 40);
    if (OTHER_CHANNEL.test(after)) continue;
    // "Don't email me again until September" is a timing, not a removal.
    if (UNTIL.test(after)) continue;
    return true;
  }
  return false;
}

export function asksRemoval(text: string): boolean {
  const folded = mendTypos(text);
  if (WHOLE.test(folded.trim()) || ONLY_STOP.test(folded.trim())) return true;
  const ends = sentenceEnds(folded);
  for (const request of REQUESTS) if (asksWith(request, folded, ends)) return true;
  return false;
}
