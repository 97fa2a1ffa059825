/**
 * Phrasings written for these tests, not taken from the labelled dev set:
 * several per status and language, so the rules are checked on how each
 * language asks, declines or redirects rather than on the sample's sentences.
 */
import { describe, expect, it } from 'vitest';
import type { RuleStatus } from '../reply-status.ts';
import { statusOf } from './rules.ts';

const CASES: Record<Exclude<RuleStatus, 'NEEDS_REVIEW'>, Record<string, string[]>> = {
  UNSUBSCRIBE: {
    en: [
      'Please remove me from your list.',
      'Unsubscribe',
      'Take me off your mailing list, thanks.',
      'Stop emailing me.',
      'Do not contact me again.',
      "I'd like to be unsubscribed from these emails.",
      'Not interested. Remove my email from your database please.',
      'please stop sending me these',
      "I've left the company, please delete this address from your system.",
      'No more emails please.',
      'opt me out',
      'Kindly erase my personal data under GDPR.',
    ],
    de: [
      'Bitte nehmen Sie mich aus Ihrem Verteiler.',
      'Bitte abmelden.',
      'Ich möchte keine weiteren E-Mails von Ihnen erhalten.',
      'Kontaktieren Sie mich bitte nicht mehr.',
      'Löschen Sie bitte meine Daten.',
      'Kein Interesse. Bitte tragen Sie mich aus.',
      'Bitte keine Werbung mehr an diese Adresse.',
    ],
    fr: [
      'Merci de ne plus me contacter.',
      'Désabonnez-moi.',
      'Je ne souhaite plus recevoir vos messages.',
      'Retirez-moi de votre liste svp.',
      'Pas intéressé, merci de supprimer mes coordonnées.',
      'Arrêtez de m’écrire.',
    ],
    es: [
      'Por favor, denme de baja.',
      'No me envíen más correos.',
      'Quiero darme de baja de su lista.',
      'Dejen de escribirme, gracias.',
      'Bórrenme de su base de datos.',
      'No quiero recibir más emails.',
    ],
    nl: [
      'Graag afmelden.',
      'Verwijder mij uit uw bestand.',
      'Ik wil geen e-mails meer ontvangen.',
      'Stuur me geen mails meer aub.',
      'Haal me van de lijst.',
    ],
    pt: [
      'Por favor, me remova da lista.',
      'Não me enviem mais e-mails.',
      'Quero me descadastrar.',
      'Parem de me enviar mensagens.',
      'Excluam meus dados, por favor.',
    ],
  },
  INTERESTED: {
    en: [
      "Sounds good, let's talk next week.",
      'Yes, please send over the deck.',
      "I'd love to see a demo. Are you free Thursday at 3pm?",
      'Interested. What does your calendar look like?',
      'Can we set up a call on Monday?',
      "Happy to chat - here's my calendly: https://calendly.com/jdoe",
      'Sure, book a slot with me for Tuesday afternoon.',
      'This looks promising. Send me pricing and a case study.',
    ],
    de: [
      'Klingt interessant, rufen Sie mich morgen an.',
      'Gern, schicken Sie mir bitte ein Angebot.',
      'Ein Termin nächste Woche wäre gut. Passt Ihnen Dienstag um 10 Uhr?',
      'Ja, wir haben Interesse. Lassen Sie uns telefonieren.',
      'Das ist für uns durchaus interessant, senden Sie mir Unterlagen.',
    ],
    fr: [
      'Oui, je suis intéressé. Appelez-moi mardi.',
      'Avec plaisir, envoyez-moi une proposition.',
      'Ça m’intéresse, on peut en parler jeudi à 14h ?',
      'Bonne idée, je suis disponible lundi prochain.',
    ],
    es: [
      'Sí, me interesa. ¿Podemos hablar el martes?',
      'Envíame más información, por favor.',
      'Nos encantaría ver la demo.',
      'Hablemos esta semana, ¿te parece el jueves a las 11?',
    ],
    nl: [
      'Klinkt interessant, stuur me meer informatie.',
      'Goed idee, plan maar een afspraak in.',
      'Bel me maar donderdag om 10 uur.',
      'Lijkt me interessant, stuur maar een voorstel.',
    ],
    pt: [
      'Tenho interesse, podemos conversar na quinta?',
      'Bora marcar uma reunião.',
      'Me envie mais detalhes, por favor.',
      'Pode ser na terça às 10h?',
    ],
  },
  NOT_INTERESTED: {
    en: [
      'Not interested, thanks.',
      "No thanks, we're happy with our current provider.",
      'We already have a solution for this.',
      "We'll pass.",
      "Thanks, but this isn't a fit for us.",
      'We do this in-house.',
      "Appreciate it, but we're all set.",
      'Not something we need. Good luck though.',
    ],
    de: [
      'Kein Interesse, danke.',
      'Wir sind mit unserem aktuellen Anbieter sehr zufrieden.',
      'Danke, aber wir haben bereits eine Lösung.',
      'Nein danke, brauchen wir nicht.',
      'Das ist für uns kein Thema.',
    ],
    fr: [
      'Non merci.',
      'Nous ne sommes pas intéressés.',
      'Nous avons déjà un prestataire, merci.',
      'Ce n’est pas un sujet pour nous, merci quand même.',
    ],
    es: [
      'No nos interesa, gracias.',
      'Ya tenemos proveedor y estamos contentos.',
      'Gracias, pero no necesitamos nada de esto.',
      'No estamos interesados.',
    ],
    nl: ['Geen interesse, bedankt.', 'Nee dank je, we hebben al een leverancier.', 'Niet nodig, we zijn tevreden met onze huidige partij.'],
    pt: ['Não temos interesse, obrigado.', 'Já temos uma ferramenta para isso.', 'Obrigada, mas não precisamos.'],
  },
  NOT_NOW: {
    en: [
      'Not right now. Check back in a few months.',
      "We're slammed this quarter, reach out again in October.",
      'Maybe later this year.',
      'Timing is bad. Can you follow up after the holidays?',
      'Try me again next quarter.',
      'Budget is frozen until Q3, circle back then.',
      'Ping me in three weeks.',
    ],
    de: [
      'Momentan nicht, melden Sie sich bitte im Herbst wieder.',
      'Derzeit kein Bedarf, gern im nächsten Jahr nochmal.',
      'Aktuell nicht, kontaktieren Sie mich in drei Monaten.',
      'Zu einem späteren Zeitpunkt gern.',
    ],
    fr: [
      'Pas pour le moment, recontactez-moi en septembre.',
      'Ce n’est pas le bon moment, revenez vers moi dans deux mois.',
      'Plus tard peut-être, nous sommes en pleine réorganisation.',
    ],
    es: [
      'Ahora mismo no, escríbeme en septiembre.',
      'No es buen momento, vuelve a contactarme dentro de dos meses.',
      'Quizás más adelante.',
    ],
    nl: ['Op dit moment niet, neem over drie maanden weer contact op.', 'Nu even niet. Volgend jaar misschien weer contact opnemen.'],
    pt: ['No momento não, me procure daqui a dois meses.', 'Agora não é um bom momento, entre em contato no próximo trimestre.'],
  },
  WRONG_PERSON: {
    en: [
      "I'm not the right person for this.",
      'Wrong contact, sorry.',
      'She no longer works here.',
      'John left the company last month.',
      "This isn't my area - you'd want to speak with our IT director.",
      'Procurement is handled by our head office.',
    ],
    de: [
      'Ich bin dafür nicht zuständig.',
      'Herr Maier ist nicht mehr im Unternehmen.',
      'Da sind Sie bei mir falsch, wenden Sie sich bitte an die Personalabteilung.',
    ],
    fr: [
      'Je ne suis pas la bonne personne.',
      'Madame Durand a quitté la société.',
      'Je ne m’occupe pas de ce sujet, adressez-vous au service achats.',
    ],
    es: ['No soy la persona adecuada.', 'Ya no trabajo en la empresa.', 'Carlos dejó la empresa el mes pasado.'],
    nl: ['Ik ben niet de juiste persoon.', 'Hij werkt hier niet meer.', 'Dat valt onder onze inkoopafdeling.'],
    pt: ['Não sou a pessoa responsável por isso.', 'Ela saiu da empresa.', 'Não trabalho mais lá.'],
  },
  QUESTION: {
    en: [
      'How much does it cost?',
      'Where did you get my email address?',
      'Does it integrate with SAP?',
      'Who are you?',
      'What is the minimum contract length?',
    ],
    de: ['Was kostet das?', 'Woher haben Sie meine Adresse?', 'Gibt es eine Testphase?'],
    fr: ['Quel est le prix ?', 'Comment avez-vous eu mon adresse ?'],
    es: ['¿Cuánto cuesta?', '¿De dónde sacaron mi correo?'],
    nl: ['Wat kost het?', 'Hoe komt u aan mijn adres?'],
    pt: ['Quanto custa?', 'Como conseguiram meu e-mail?'],
  },
};

describe('the rules, on phrasings written for the tests', () => {
  for (const [status, byLanguage] of Object.entries(CASES)) {
    for (const [lang, phrases] of Object.entries(byLanguage)) {
      it.each(phrases)(`${status} (${lang}): %s`, (phrase) => {
        expect(statusOf(phrase)).toBe(status);
      });
    }
  }
});

describe('negations and look-alikes', () => {
  it.each([
    ["Please don't remove me, I'd like to hear more.", 'INTERESTED'],
    ['I was about to hit unsubscribe, but this is actually relevant. Call me Friday?', 'INTERESTED'],
    ['Not uninterested - send me the details.', 'INTERESTED'],
    ['Nicht uninteressant, schicken Sie mir die Unterlagen.', 'INTERESTED'],
    ['Do you do anodizing in-house?', 'QUESTION'],
    ['Why did you send me this?', 'QUESTION'],
    ['No problem, send it over.', 'INTERESTED'],
    ["I'm not sure we'd be interested.", 'NEEDS_REVIEW'],
    ['We would have been interested a year ago.', 'NEEDS_REVIEW'],
  ])('%s -> %s', (text, status) => {
    expect(statusOf(text)).toBe(status);
  });

  it.each(['Sounds interesting, but we already have a provider.', 'Not right now, but send me the deck.', '', 'Thanks for your email.'])(
    'mixed or empty signals need a review: %s',
    (text) => {
      expect(statusOf(text)).toBe('NEEDS_REVIEW');
    },
  );
});

describe('removal words that are not a removal request', () => {
  it.each([
    ['Can your platform delete customer data after 30 days?', 'QUESTION'],
    ['We need to remove the bottleneck in our AP process. Can we talk Tuesday?', 'INTERESTED'],
    ['Do you offer a way for our users to opt out of notifications?', 'QUESTION'],
    ['Can I unsubscribe my team members from the training emails in your tool?', 'QUESTION'],
    ['We need to stop sending invoices by hand. Can we talk Monday?', 'INTERESTED'],
    ['Our customers keep asking to be removed from our lists, can your tool handle that?', 'QUESTION'],
    ['Wir wollen Abmeldungen automatisieren. Was kostet das?', 'QUESTION'],
    ['Can your software delete our records after seven years?', 'QUESTION'],
    ['How can we unsubscribe users automatically with your tool?', 'QUESTION'],
    ['Kann die Software Daten automatisch löschen?', 'QUESTION'],
    ['A exclusão de dados é automática?', 'QUESTION'],
    ["Don't email me, call me on Thursday instead.", 'INTERESTED'],
  ])('%s -> %s', (text, status) => {
    expect(statusOf(text)).toBe(status);
  });
});

describe('a no qualified by time, and other mixed replies', () => {
  it.each([
    ['Merci mais nous ne sommes pas intéressés pour le moment.', 'NEEDS_REVIEW'],
    ['Not a priority for us this quarter, but maybe next.', 'NOT_NOW'],
    ['Our budget cycle starts in October, reach out then.', 'NOT_NOW'],
    ['Looks great. Unfortunately we have no budget this year, try again in January.', 'NOT_NOW'],
    ['We are interested but not before next year.', 'NOT_NOW'],
    ["We're re-sourcing that part right now, send me your pricing.", 'INTERESTED'],
    ["I'm not interested, and please stop emailing me.", 'UNSUBSCRIBE'],
    ['I left Acme in March. Please remove me and contact jana@acme.com instead.', 'UNSUBSCRIBE'],
    ['Können wir nächste Woche telefonieren?', 'INTERESTED'],
    ['Pouvez-vous m’envoyer une documentation ?', 'INTERESTED'],
    ['Me parece interesante, ¿podemos agendar una llamada?', 'INTERESTED'],
    ['Leuk, kunnen we volgende week bellen?', 'INTERESTED'],
    ['Quero ser removido da lista.', 'UNSUBSCRIBE'],
    ['Wilt u mij uitschrijven?', 'UNSUBSCRIBE'],
    ['Ich bitte um Löschung meiner Daten.', 'UNSUBSCRIBE'],
  ])('%s -> %s', (text, status) => {
    expect(statusOf(text)).toBe(status);
  });
});

describe('more phrasings, in each language', () => {
  it.each([
    ["Please don't send me any more of these.", 'UNSUBSCRIBE'],
    ['Ich möchte keine Werbung erhalten.', 'UNSUBSCRIBE'],
    ['Haal mijn adres alsjeblieft uit jullie bestand.', 'UNSUBSCRIBE'],
    ['Me tire da sua lista, por favor.', 'UNSUBSCRIBE'],
    ['Dame de baja, por favor.', 'UNSUBSCRIBE'],
    ['Stop, merci de ne plus m’écrire.', 'UNSUBSCRIBE'],
    ['Bitte löschen Sie meine E-Mail-Adresse aus Ihrer Datenbank.', 'UNSUBSCRIBE'],
    ['You have the wrong Jana.', 'WRONG_PERSON'],
    ['Ik ben hiervoor niet verantwoordelijk.', 'WRONG_PERSON'],
    ['Escríbanle a mi compañera Ana López, ana.lopez@empresa.es', 'WRONG_PERSON'],
    ['Je ne suis pas concerné, voyez avec notre DSI.', 'WRONG_PERSON'],
    ['Não sou a pessoa certa, fale com o João.', 'WRONG_PERSON'],
    ['Ich bin seit Januar nicht mehr im Unternehmen.', 'WRONG_PERSON'],
    ['Hard pass.', 'NOT_INTERESTED'],
    ['Thanks, not something we are looking at.', 'NOT_INTERESTED'],
    ['Pas de besoin actuellement.', 'NEEDS_REVIEW'],
    ['Für uns leider nicht relevant.', 'NOT_INTERESTED'],
    ['Merci, mais nous sommes déjà équipés.', 'NOT_INTERESTED'],
    ['Não precisamos disso, obrigado.', 'NOT_INTERESTED'],
    ['Entre em contato no segundo semestre.', 'NOT_NOW'],
    ['Neem na de zomer contact op.', 'NOT_NOW'],
    ['Revenez vers moi en janvier.', 'NOT_NOW'],
    ['Das passt gerade nicht, vielleicht im Sommer.', 'NOT_NOW'],
    ['No budget until next fiscal year. Feel free to reach out in April.', 'NOT_NOW'],
    ['Gerne, wann passt es Ihnen?', 'INTERESTED'],
    ['We have a need for this. Who should I talk to about pricing?', 'INTERESTED'],
    ['Intéressant, pouvez-vous me rappeler demain ?', 'INTERESTED'],
    ['Parece interessante, vamos marcar uma conversa?', 'INTERESTED'],
    ['Me interesa, llámame mañana.', 'INTERESTED'],
    ['Is there a free trial?', 'QUESTION'],
    ['What is this regarding?', 'QUESTION'],
  ])('%s -> %s', (text, status) => {
    expect(statusOf(text)).toBe(status);
  });
});

describe('a further round of phrasings, one status per language each', () => {
  it.each([
    ['Good timing actually. Can you send a proposal by Friday?', 'INTERESTED'],
    ['Yes, worth a conversation. I am around Wednesday after 2.', 'INTERESTED'],
    ["Let's chat. My number is 555-0100.", 'INTERESTED'],
    ['Absolutely, set it up.', 'INTERESTED'],
    ['I would love to learn more.', 'INTERESTED'],
    ['Please send me the case study.', 'INTERESTED'],
    ['Our team is keen to see a demo.', 'INTERESTED'],
    ['Ja, gerne. Schicken Sie mir einen Terminvorschlag.', 'INTERESTED'],
    ['Klingt spannend. Haben Sie Donnerstag Zeit?', 'INTERESTED'],
    ['Oui, ça m’intéresse. Envoyez-moi vos disponibilités.', 'INTERESTED'],
    ['Volontiers, je vous propose mardi à 11h.', 'INTERESTED'],
    ['Sí, mándame la propuesta.', 'INTERESTED'],
    ['Claro, ¿te va bien el miércoles?', 'INTERESTED'],
    ['Ja hoor, stuur maar een uitnodiging.', 'INTERESTED'],
    ['Prima, bel me morgen.', 'INTERESTED'],
    ['Sim, me manda a proposta.', 'INTERESTED'],
    ['Legal, vamos conversar na segunda às 10h?', 'INTERESTED'],
    ['What is the pricing model?', 'QUESTION'],
    ['Do you work with companies outside the EU?', 'QUESTION'],
    ['Who referred you to me?', 'QUESTION'],
    ['Welche Referenzen haben Sie?', 'QUESTION'],
    ['Avez-vous des références dans notre secteur ?', 'QUESTION'],
    ['¿Trabajáis con empresas en México?', 'QUESTION'],
    ['Hebben jullie ervaring in de zorg?', 'QUESTION'],
    ['Vocês atendem empresas de pequeno porte?', 'QUESTION'],
    ['Please get back to me in a couple of weeks.', 'NOT_NOW'],
    ['Ping me again in the new year.', 'NOT_NOW'],
    ["Now's not a good time. Try me in March.", 'NOT_NOW'],
    ['Wir sind gerade mitten in einer Umstellung. Melden Sie sich in einem halben Jahr.', 'NOT_NOW'],
    ['Bitte kontaktieren Sie mich Anfang nächsten Jahres.', 'NOT_NOW'],
    ['Recontactez-moi à la rentrée.', 'NOT_NOW'],
    ['Ce n’est pas le moment, relancez-moi en juin.', 'NOT_NOW'],
    ['Ahora estamos a tope, escríbeme en octubre.', 'NOT_NOW'],
    ['Neem in januari weer contact op.', 'NOT_NOW'],
    ['Me procure no ano que vem.', 'NOT_NOW'],
    ["Thanks but we're not looking for this.", 'NOT_INTERESTED'],
    ['We have zero need for this.', 'NOT_INTERESTED'],
    ['Not a fit, sorry.', 'NOT_INTERESTED'],
    ['Wir haben das bereits intern gelöst.', 'NOT_INTERESTED'],
    ['Kein Interesse.', 'NOT_INTERESTED'],
    ['Nous avons déjà une solution en interne.', 'NOT_INTERESTED'],
    ['Non, merci, ça ne nous intéresse pas.', 'NOT_INTERESTED'],
    ['No, gracias. Ya tenemos a alguien.', 'NOT_INTERESTED'],
    ['Geen behoefte aan.', 'NOT_INTERESTED'],
    ['Não, obrigado. Já temos parceiro.', 'NOT_INTERESTED'],
    ["I'm not the decision maker here.", 'WRONG_PERSON'],
    ['She left us in December.', 'WRONG_PERSON'],
    ['Please contact our purchasing department instead.', 'WRONG_PERSON'],
    ['Ich bin nicht der richtige Ansprechpartner.', 'WRONG_PERSON'],
    ['Je ne suis pas la bonne interlocutrice.', 'WRONG_PERSON'],
    ['Esto lo lleva mi compañero Luis.', 'WRONG_PERSON'],
    ['Dit valt niet onder mijn verantwoordelijkheid.', 'WRONG_PERSON'],
    ['Ele não trabalha mais aqui.', 'WRONG_PERSON'],
  ])('%s -> %s', (text, status) => {
    expect(statusOf(text)).toBe(status);
  });
});

describe('wrong person, in the families the first rules missed (own phrasings)', () => {
  it.each([
    // gone: left, retired, another role
    ['Priya has left the business.', 'en'],
    ['Tom retired last spring, so this inbox is not monitored.', 'en'],
    ["I've moved to a different team and no longer cover procurement.", 'en'],
    ['This address belonged to a former colleague.', 'en'],
    ['Frau Kühn ist seit Mai nicht mehr bei uns beschäftigt.', 'de'],
    ['Herr Wolf ist im Ruhestand.', 'de'],
    ['Ich habe intern die Abteilung gewechselt.', 'de'],
    ['Monsieur Petit a pris sa retraite.', 'fr'],
    ['Je ne fais plus partie de cette société.', 'fr'],
    ["J'ai changé de poste l'an dernier.", 'fr'],
    ['Marta ya no sigue con nosotros.', 'es'],
    ['Jorge se jubiló el año pasado.', 'es'],
    ['He cambiado de departamento.', 'es'],
    ['Pieter is niet meer werkzaam bij ons bedrijf.', 'nl'],
    ['Zij is met pensioen.', 'nl'],
    ['Ik heb sinds kort een andere functie.', 'nl'],
    ['O Paulo já não trabalha aqui.', 'pt'],
    ['Ela se aposentou em março.', 'pt'],
    ['Mudei de área no ano passado.', 'pt'],
    // not my area, or pointing on
    ["I don't look after marketing, sorry.", 'en'],
    ["That's not something I handle.", 'en'],
    ['Not me - ask our finance lead.', 'en'],
    ["You'll need our operations manager for that.", 'en'],
    ["I'm only the office assistant here.", 'en'],
    ['Nothing to do with me, I just do the books.', 'en'],
    ['This reached me by mistake, I think. Forwarded to me in error.', 'en'],
    ['Da sind Sie bei mir leider falsch.', 'de'],
    ['Damit habe ich nichts zu tun.', 'de'],
    ['Zuständig ist unsere Einkaufsleitung.', 'de'],
    ["Ce n'est pas moi qui décide, voyez avec la direction.", 'fr'],
    ['Cela ne me concerne pas.', 'fr'],
    ['Vous vous êtes trompé de destinataire.', 'fr'],
    ['Eso no lo gestiono yo.', 'es'],
    ['No me corresponde, lo paso a quien corresponda.', 'es'],
    ['Se ha equivocado de contacto.', 'es'],
    ['Hier ga ik niet over.', 'nl'],
    ['Probeer onze inkoopafdeling.', 'nl'],
    ['U heeft de verkeerde persoon.', 'nl'],
    ['Não sou eu que decido isso.', 'pt'],
    ['Não cuido disso, fale com o financeiro.', 'pt'],
    ['Acho que é a pessoa errada.', 'pt'],
  ])('%s (%s) -> WRONG_PERSON', (text) => {
    expect(statusOf(text)).toBe('WRONG_PERSON');
  });

  it.each([
    ['Je ne suis pas intéressé.', 'NOT_INTERESTED'],
    ["I've left the deck with our CFO, we'll review it. Can you send me pricing too?", 'INTERESTED'],
    ['I have left you a voicemail, call me back when you can.', 'INTERESTED'],
    ["I don't manage to read everything, but this sounds interesting. Demo next week?", 'INTERESTED'],
    ['Jana left the company, please remove her and me from your list.', 'UNSUBSCRIBE'],
    ['Ich habe ihn in Kopie gesetzt, können wir am Dienstag telefonieren?', 'INTERESTED'],
  ])('%s -> %s', (text, status) => {
    expect(statusOf(text)).toBe(status);
  });
});

describe('wrong person, a second round of own phrasings', () => {
  it.each([
    'Sorry, Mark moved on in the summer.',
    "She's not with us anymore.",
    "I'm in finance, so this isn't my department.",
    "Procurement isn't me - you want Sarah.",
    'He passed away last year. Please update your records.',
    "I'm on the sales side; marketing tools are someone else's job.",
    'Frau Berger ist leider nicht mehr für uns tätig.',
    'Herr Simon hat das Unternehmen Ende März verlassen.',
    'Ce sujet est géré par notre siège.',
    'Elle est partie en février.',
    'Yo no soy quien decide sobre esto.',
    'Luis ya no trabaja con nosotros.',
    'Daarvoor moet u bij onze IT-afdeling zijn.',
    'Meneer de Vries is vertrokken.',
    'Ela não está mais na empresa.',
    'Isso não é comigo, é com o time de compras.',
  ])('%s -> WRONG_PERSON', (text) => {
    expect(statusOf(text)).toBe('WRONG_PERSON');
  });

  it.each([
    ["Looks great, I've cc'd our CTO. Can we book a call on Tuesday?", 'INTERESTED'],
    ['We left our last provider in January. Interested in a demo.', 'INTERESTED'],
    ['Our team has left feedback in the doc; can you send a revised proposal?', 'INTERESTED'],
    ['Est-ce géré par vos équipes ?', 'QUESTION'],
    ['¿Está gestionado por vuestro equipo?', 'QUESTION'],
    ['O pagamento é feito no fim do mês?', 'QUESTION'],
    ["Thanks, but I don't deal with vendors via cold email.", 'NOT_INTERESTED'],
  ])('%s -> %s', (text, status) => {
    expect(statusOf(text)).toBe(status);
  });
});

describe('wrong person, a third round: "I do X, not Y" and a mailbox no longer read, in each language', () => {
  it.each([
    'Frau Hahn arbeitet nicht mehr hier.',
    'Ich bin für Marketing zuständig, nicht für IT.',
    'Das entscheidet bei uns die Geschäftsführung.',
    'Diese Adresse wird nicht mehr genutzt.',
    'Madame Roux ne travaille plus ici.',
    "Je m'occupe de la comptabilité, pas des achats.",
    "Ce n'est pas mon rôle, c'est notre DAF qui décide.",
    "Cette adresse n'est plus utilisée.",
    'Yo me encargo de ventas, no de compras.',
    'Esta dirección ya no se utiliza.',
    'Ik doe alleen de boekhouding, niet de inkoop.',
    'Dit adres wordt niet meer gelezen.',
    'Eu cuido do financeiro, não de compras.',
    'O Carlos não faz mais parte da equipe.',
    'Esse e-mail não é mais usado.',
    'This address is no longer used.',
  ])('%s -> WRONG_PERSON', (text) => {
    expect(statusOf(text)).toBe('WRONG_PERSON');
  });

  it.each([
    'Ich bin für den Einkauf zuständig. Was kostet das?',
    'Je m’occupe des achats. Quel est votre prix ?',
    'Yo llevo compras. ¿Cuánto cuesta?',
    'Ik doe de inkoop. Wat kost het?',
    'Eu cuido de compras. Quanto custa?',
  ])('the one in charge asks: %s -> QUESTION', (text) => {
    expect(statusOf(text)).toBe('QUESTION');
  });
});
