import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOutOfOfficeText } from './out-of-office.ts';

describe('isOutOfOfficeText: vacation answers from their words alone', () => {
  it.each([
    [
      'en',
      'I am out of the office until 12 March with limited access to email. For urgent matters please contact Jane at jane@client.com.\n\nBest regards,\nBob\nHead of Sales, ACME Ltd',
    ],
    ['en', 'I am on annual leave until Monday 23 March and will reply on my return.'],
    [
      'de',
      'Ich bin bis 12. März nicht im Büro. In dringenden Fällen wenden Sie sich bitte an meine Kollegin Anna (anna@kunde.de).\n\nMit freundlichen Grüßen\nJan',
    ],
    ['de', 'Ich befinde mich bis einschließlich 20.03. im Urlaub. Ihre Nachricht wird nicht weitergeleitet.'],
    ['fr', "Je suis absent du bureau jusqu'au 16 mars. Pour toute urgence, contactez Marie au 01 23 45 67 89.\nCordialement"],
    ['es', 'Estoy fuera de la oficina hasta el 20 de marzo. Si es urgente, contacte a Luis: luis@cliente.es\nSaludos'],
    [
      'nl',
      'Ik ben afwezig tot en met 14 maart en heb beperkt toegang tot mijn e-mail. Voor dringende zaken kunt u contact opnemen met Piet.\nMet vriendelijke groet',
    ],
    ['pt', 'Estou fora do escritório até 18 de março, com acesso limitado ao e-mail. Em caso de urgência, contate a Ana.\nAtenciosamente'],
    ['it', 'Sono fuori ufficio fino al 15 marzo. Per urgenze contattare Marco.\nCordiali saluti'],
  ])('%s: %s', (_, text) => {
    expect(isOutOfOfficeText(text)).toBe(true);
  });

  it.each([
    'out till Monday, yes send the deck',
    'Thanks, I am on vacation next week but send the deck and I will read it.',
    'Happy to talk. I am away until Friday though; can we do Monday at 10?',
    'Ich bin bis Freitag im Urlaub, klingt gut, schicken Sie mir die Unterlagen.',
    "Je suis en congé jusqu'au 16, mais oui, envoyez-moi la présentation.",
    'Yes, Tuesday works.',
    'Not interested, thanks.',
    // Words about an absence quoted below the person's answer are not theirs.
    'Sounds good, call me Thursday.\n\nOn Tue, 3 Mar 2026, Rita <rita@sender.com> wrote:\n> I am out of the office until 12 March.',
  ])('a person answering stays a reply: %s', (text) => {
    expect(isOutOfOfficeText(text)).toBe(false);
  });

  it('none of the 120 labelled replies in six languages reads as an out-of-office', () => {
    const rows = readFileSync(join(import.meta.dirname, '../../../../test/fixtures/replies/dev.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; reply: { text: string } });
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.filter((r) => isOutOfOfficeText(r.reply.text)).map((r) => r.id)).toEqual([]);
  });

  it('is linear on a long run without clause breaks', () => {
    const started = performance.now();
    isOutOfOfficeText(`out of office ${'a'.repeat(200_000)}`);
    isOutOfOfficeText(`${'out until '.repeat(20_000)}`);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
