import { describe, expect, it } from 'vitest';
import { ownWordsOf } from './own-words.ts';

const QUOTED_BODY = [
  'Hi Jana,',
  '',
  'Would a short call next week work?',
  '',
  'Acme Ltd, 1 Main Street, London E1 1AA, United Kingdom',
  'Unsubscribe: https://mail.acme.example/unsubscribe/abc123',
];
const prefixed = QUOTED_BODY.map((l) => `> ${l}`.trimEnd()).join('\n');
const plain = QUOTED_BODY.join('\n');

describe('the quoted original is cut', () => {
  it.each([
    ['Gmail', `Sounds good.\n\nOn Mon, Mar 2, 2026 at 9:00 AM Tom Baker <tom@acme.example> wrote:\n${prefixed}`],
    [
      'Gmail, header wrapped over two lines',
      `Sounds good.\n\nOn Mon, Mar 2, 2026 at 9:00 AM Tom Baker\n<tom@acme.example> wrote:\n\n${prefixed}`,
    ],
    [
      'Apple Mail',
      `Sounds good.\n\nSent from my iPhone\n\n> On Mar 2, 2026, at 9:00 AM, Tom Baker <tom@acme.example> wrote:\n>\n${prefixed}`,
    ],
    [
      'Outlook',
      `Sounds good.\n\nFrom: Tom Baker <tom@acme.example>\nSent: Monday, March 2, 2026 9:00 AM\nTo: Jana\nSubject: Hello\n\n${plain}`,
    ],
    [
      'Outlook, Original Message',
      `Sounds good.\n\n-----Original Message-----\nFrom: Tom Baker <tom@acme.example>\nDate: Monday, March 2, 2026\nTo: Jana\nSubject: Hello\n\n${plain}`,
    ],
    [
      'Outlook under a rule',
      `Sounds good.\n\n________________________________\nFrom: Tom Baker <tom@acme.example>\nSent: 2 March 2026 09:00\n\n${plain}`,
    ],
    [
      'German Outlook',
      `Sounds good.\n\nVon: Tom Baker [mailto:tom@acme.example]\nGesendet: Montag, 2. März 2026 09:00\nAn: Jana\nBetreff: Hallo\n\n${plain}`,
    ],
    ['German Gmail', `Sounds good.\n\nAm Mo., 2. März 2026 um 09:00 Uhr schrieb Tom Baker <tom@acme.example>:\n${prefixed}`],
    ['German Thunderbird', `Sounds good.\n\nAm 02.03.26 um 09:00 schrieb Tom Baker:\n${prefixed}`],
    ['French Gmail', `Sounds good.\n\nLe lun. 2 mars 2026 à 09:00, Tom Baker <tom@acme.example> a écrit :\n${prefixed}`],
    ['French Gmail, wrapped', `Sounds good.\n\nLe lun. 2 mars 2026 à 09:00, Tom Baker <tom@acme.example>\na écrit :\n${prefixed}`],
    [
      'French Outlook',
      `Sounds good.\n\nDe : Tom Baker <tom@acme.example>\nEnvoyé : lundi 2 mars 2026 09:00\nÀ : Jana\nObjet : Bonjour\n\n${plain}`,
    ],
    ['Spanish Gmail', `Sounds good.\n\nEl lun, 2 mar 2026 a las 9:00, Tom Baker (<tom@acme.example>) escribió:\n${prefixed}`],
    [
      'Spanish Outlook',
      `Sounds good.\n\nDe: Tom Baker <tom@acme.example>\nEnviado: lunes, 2 de marzo de 2026 9:00\nPara: Jana\nAsunto: Hola\n\n${plain}`,
    ],
    ['Spanish, Mensaje original', `Sounds good.\n\n-----Mensaje original-----\nDe: Tom Baker\nEnviado: lunes\n\n${plain}`],
    ['Dutch Gmail', `Sounds good.\n\nOp ma 2 mrt 2026 om 09:00 schreef Tom Baker <tom@acme.example>:\n${prefixed}`],
    [
      'Dutch Apple Mail',
      `Sounds good.\n\n> Op 2 mrt 2026 om 09:00 heeft Tom Baker <tom@acme.example> het volgende geschreven:\n${prefixed}`,
    ],
    [
      'Dutch Outlook',
      `Sounds good.\n\nVan: Tom Baker <tom@acme.example>\nVerzonden: maandag 2 maart 2026 09:00\nAan: Jana\nOnderwerp: Hallo\n\n${plain}`,
    ],
    ['Portuguese Gmail', `Sounds good.\n\nEm seg., 2 de mar. de 2026 às 09:00, Tom Baker <tom@acme.example> escreveu:\n${prefixed}`],
    ['Apple Mail forward', `Sounds good.\n\nBegin forwarded message:\n\nFrom: Tom Baker <tom@acme.example>\n${plain}`],
    [
      'Portuguese Outlook',
      `Sounds good.\n\nDe: Tom Baker <tom@acme.example>\nEnviada: segunda-feira, 2 de março de 2026 09:00\nPara: Jana\nAssunto: Olá\n\n${plain}`,
    ],
  ])('%s', (_client, text) => {
    expect(ownWordsOf(text)).toBe('Sounds good.');
  });

  it('keeps a reply written below the quote (bottom-posting)', () => {
    const text = `On 02/03/2026 09:00, Tom Baker wrote:\n${prefixed}\n\nNo thanks, we are covered.\n\nJana`;
    expect(ownWordsOf(text, 'Jana Novak')).toBe('No thanks, we are covered.');
  });

  it('keeps answers written between the quoted lines', () => {
    const text = `On 3/2/26 9:00 AM, Tom Baker wrote:\n> Do you ship to Spain?\n\nYes, weekly.\n\n> And the price?\n\nWhat does it cost per pallet?\n\n> Tom`;
    expect(ownWordsOf(text)).toBe('Yes, weekly.\n\nWhat does it cost per pallet?');
  });

  it('takes the whole text when there is no quote', () => {
    expect(ownWordsOf('Please call me on Friday.')).toBe('Please call me on Friday.');
  });

  it('drops our footer pasted back without quote marks', () => {
    expect(
      ownWordsOf(
        `Not for us.\n\nAcme Ltd, 1 Main Street, London E1 1AA, United Kingdom\nUnsubscribe: https://mail.acme.example/unsubscribe/x`,
      ),
    ).toBe('Not for us.');
  });

  it('keeps a sentence just above a pasted footer', () => {
    expect(ownWordsOf(`Please remove me.\nUnsubscribe: https://mail.acme.example/unsubscribe/x`)).toBe('Please remove me.');
  });
});

describe('signatures and disclaimers are cut', () => {
  it.each([
    ['"-- " line', 'Send it over.\n\n-- \nJana Novak\nM: +44 7700 900000 | E: jana@novak.example'],
    ['sign-off and title block', 'Send it over.\n\nBest regards,\nJana Novak\nHead of Operations\nNovak Ltd\nT: 0161 496 0000'],
    ['the name alone, with a title', 'Send it over.\n\nJana Novak | Head of Operations\n+44 161 496 0000'],
    ['German sign-off', 'Send it over.\n\nMit freundlichen Grüßen\nJana Novak'],
    ['French device line', 'Send it over.\n\nEnvoyé de mon iPhone'],
    ['German device line', 'Send it over.\n\nVon meinem iPhone gesendet'],
    ['Outlook app line', 'Send it over.\n\nOutlook für iOS herunterladen'],
    ['Spanish device line', 'Send it over.\n\nEnviado desde mi Samsung Galaxy'],
    ['Dutch device line', 'Send it over.\n\nVerstuurd vanaf mijn iPhone'],
    ['Portuguese device line', 'Send it over.\n\nEnviado do meu iPhone'],
    ['Windows Mail line', 'Send it over.\n\nSent from Mail for Windows'],
    [
      'English disclaimer',
      'Send it over.\n\nThis message may contain confidential information. If you are not the intended recipient, please delete it.',
    ],
    ['external sender banner', 'Send it over.\n\nCAUTION: This email originated from outside of the organization.'],
    ['German disclaimer', 'Send it over.\n\nDiese E-Mail ist vertraulich. Wenn Sie nicht der richtige Adressat sind, löschen Sie sie.'],
    [
      'German privacy line',
      'Send it over.\n\nInformationen zum Umgang mit Ihren personenbezogenen Daten nach Art. 13 DSGVO finden Sie unter https://x.example',
    ],
    [
      'French disclaimer',
      "Send it over.\n\nCe message et toutes les pièces jointes sont confidentiels et établis à l'intention exclusive de ses destinataires.",
    ],
    [
      'Spanish disclaimer',
      'Send it over.\n\nAVISO LEGAL: Este mensaje y sus archivos adjuntos van dirigidos exclusivamente a su destinatario.',
    ],
    ['Dutch banner', 'Send it over.\n\nLET OP: Deze e-mail is afkomstig van buiten de organisatie.'],
    [
      'Portuguese disclaimer',
      'Send it over.\n\nEsta mensagem pode conter informações confidenciais. Se você não for o destinatário, apague-a.',
    ],
    ['HTML leftovers', 'Send it over.&nbsp;<br>\n<br>\nRegards,<br>\nJana'],
  ])('%s', (_what, text) => {
    expect(ownWordsOf(text, 'Jana Novak')).toBe('Send it over.');
  });

  it('keeps a request written on the line above a notice in the same paragraph', () => {
    expect(
      ownWordsOf('Please remove me.\nThis message may contain confidential information. If you are not the intended recipient, delete it.'),
    ).toBe('Please remove me.');
  });

  it('keeps a GDPR request that names the regulation', () => {
    const text = 'Under Article 17 of the GDPR I request that you erase my personal data.';
    expect(ownWordsOf(text)).toBe(text);
  });

  it('keeps a short sentence after a thank-you line', () => {
    expect(ownWordsOf('Hi Tom,\nThanks.\nPlease remove me.')).toContain('Please remove me.');
  });

  it('keeps a paragraph after "Thanks," when it is a sentence', () => {
    expect(ownWordsOf('Thanks,\n\nplease take me off your list, I have asked twice already and would rather not again.')).toContain(
      'take me off',
    );
  });
});
