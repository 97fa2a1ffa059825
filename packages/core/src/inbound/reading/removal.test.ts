/**
 * Removal requests written for the tests (not from the labelled dev set), and
 * sentences that use removal words without asking to be removed.
 */
import { describe, expect, it } from 'vitest';
import { fold } from './fold.ts';
import { asksRemoval } from './removal.ts';

const asks = (text: string) => asksRemoval(fold(text).replace(/\s+/g, ' ').trim());

describe('removal requests', () => {
  it.each([
  'Please take my name off your list.', 'Unsubscribe.', 'UNSUBSCRIBE ME NOW', 'remove from list', 'Pls remove', 'Stop sending me emails.',
  'I want off this list.', 'Do not email this address again.', 'Cease and desist all communication.', 'Please delete me from your database.',
  'I have asked twice to be removed. Remove me.', "I'm not interested. Please don't contact me further.", 'Please opt me out of your emails.',
  'Take us off the list, thanks.', 'No more emails, thank you.', 'Stop spamming me.', 'Remove my details from your CRM.',
  'Ich möchte aus Ihrem Verteiler entfernt werden.', 'Bitte streichen Sie meine Adresse.', 'Austragen bitte.', 'Bitte nicht mehr kontaktieren.', 'Ich widerspreche der Nutzung meiner Daten.',
  'Merci de me désabonner.', 'Veuillez cesser de m’envoyer des e-mails.', 'Ne me contactez plus.', 'Je souhaite être retiré de votre liste.',
  'Quiero que me borren de su lista.', 'No me manden más correos.', 'Baja, por favor.', 'Elimine mi correo de su base de datos.',
  'Graag van de mailinglijst af.', 'Stop met mailen.', 'Ik wil niet meer gemaild worden.', 'Afmelden aub.',
  'Favor me descadastrar.', 'Remova meu e-mail da lista.', 'Não quero mais ser contatado.', 'Pare de me mandar e-mails.',
])('%s', (text) => {
    expect(asks(text)).toBe(true);
  });
});

describe('removal words that ask nothing of us', () => {
  it.each([
  'Please remove the second option from the quote and resend.', 'Stop the presses, this is exactly what we need! Call me.', 'We unsubscribed from our old vendor last year; what do you charge?',
  'Can we remove the setup fee?', 'Our list of suppliers is full.', 'I took the list to my team, they like it. Next steps?', 'Delete the previous email, I sent it by mistake. Yes, I want a demo.',
  'Wie können wir Kunden aus Verteilern austragen lassen? Geht das mit Ihrem Tool?', 'Nous voulons arrêter de payer trop cher. Appelez-moi.', 'Queremos dejar de usar hojas de cálculo. ¿Hablamos el lunes?',
  'We willen stoppen met Excel. Kunnen we bellen?', 'Queremos parar de perder tempo com planilhas. Podemos conversar?', 'Send me the unsubscribe stats from your case study.',
  'No more excuses, let us do it. Tuesday?', "I'd rather not get a call, just send me the deck.",

    "Please don't remove me, I'd like to hear more.",
    'I was about to hit unsubscribe, but this is relevant.',
    "Don't email me, call me on Thursday instead.",
    'If you received this in error, please notify the sender and delete this email.',
  ])('%s', (text) => {
    expect(asks(text)).toBe(false);
  });
});
