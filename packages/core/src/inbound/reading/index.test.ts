import { describe, expect, it } from 'vitest';
import { readReply } from './index.ts';

const WRITTEN = Date.parse('2026-03-10T09:00:00Z');
const FOOTER = 'Acme Ltd, 1 Main Street, London E1 1AA, United Kingdom\nUnsubscribe: https://mail.acme.example/unsubscribe/Xy12';
const quote = (body: string) =>
  `On Tue, Mar 10, 2026 at 8:00 AM Tom Baker <tom@acme.example> wrote:\n${`${body}\n\n${FOOTER}`.replace(/^/gm, '> ')}`;
const read = (text: string) =>
  readReply({ text, fromEmail: 'lead@client.example', fromName: 'Lea Client', writtenAt: WRITTEN, ownAddresses: ['tom@acme.example'] });

describe('compliance', () => {
  it.each([
    ['en', 'Please remove me from your list.'],
    ['de', 'Bitte entfernen Sie mich aus Ihrem Verteiler.'],
    ['fr', 'Merci de me retirer de votre liste.'],
    ['es', 'Por favor, elimínenme de su lista.'],
    ['nl', 'Verwijder mij alstublieft van uw lijst.'],
    ['pt', 'Por favor, me removam da sua lista.'],
    ['en, after a doubt', 'I doubt anyone reads these but please remove me from your list.'],
  ])('a "remove me" in %s is UNSUBSCRIBE', (_lang, words) => {
    expect(read(`${words}\n\n${quote('Hi Lea, a short call next week?')}`).status).toBe('UNSUBSCRIBE');
  });

  it('an interested reply whose quote holds our "Unsubscribe:" footer is not UNSUBSCRIBE', () => {
    const reading = read(`Yes, let's talk. Thursday at 10am works for me.\n\n${quote('Hi Lea, a short call next week?')}`);
    expect(reading.status).toBe('INTERESTED');
    expect(reading.ownWords).not.toMatch(/unsubscribe/i);
  });

  it('"unsubscribe" only in the quote never counts, whatever the quote form', () => {
    const outlook = `Sounds good, send me the deck.\n\nFrom: Tom Baker <tom@acme.example>\nSent: Tuesday, March 10, 2026 8:00 AM\nTo: Lea\nSubject: Hi\n\nPlease unsubscribe here if you like.\n${FOOTER}`;
    expect(read(outlook).status).toBe('INTERESTED');
  });

  it('a decline with a removal request is UNSUBSCRIBE, and a referral is kept', () => {
    const reading = read(`I left Client Co last month, please remove me. Try jana.novak@client.example instead.\n\n${quote('Hi Lea')}`);
    expect(reading).toMatchObject({ status: 'UNSUBSCRIBE', referral: { email: 'jana.novak@client.example', name: null } });
  });

  it('a referral found only in the quote or the signature is not given', () => {
    const text = `Wrong person, sorry.\n\n-- \nLea Client\nE: lea.client@client.example\n\n${quote('Hi Lea, or write to jana@client.example')}`;
    expect(read(text).referral).toBeNull();
  });

  it('followUpOn is given only with NOT_NOW', () => {
    expect(read('Not now. Reach out again in September.').followUpOn).toBe('2026-09-01');
    expect(read("Let's meet in September, send me times.").followUpOn).toBeNull();
  });
});

describe('hostile input', () => {
  const baits = {
    'spaces then a letter': ' '.repeat(65_535) + 'x',
    'one long line of address characters': 'a.'.repeat(32_768),
    'attribution openings without an end': ('On Mon, Mar 2, 2026 at 9:00 AM Tom ' + 'x '.repeat(150) + ':\n').repeat(190),
    'quote marks and rules': ('> ' + '_'.repeat(60) + '\n').repeat(1000),
    'header labels': 'From: x\n'.repeat(8000),
    'negations and verbs': 'not no never remove me from '.repeat(2400),
    'sign-offs': 'Thanks,\n'.repeat(8000),
  };

  /** The best of five timings after a warm-up: a busy machine only ever adds time, a super-linear regex multiplies it. */
  const bestOf = (text: string) => {
    read(text);
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      read(text);
      best = Math.min(best, performance.now() - start);
    }
    return best;
  };

  // On a quiet machine each reads in 1-20 ms (bench/inbound.ts prints one); best-of-five keeps a busy machine from failing it.
  it.each(Object.entries(baits))('%s (64 KB) reads in well under 100 ms, in time linear in its length', (_name, text) => {
    expect(text.length).toBeGreaterThanOrEqual(60_000);
    const whole = bestOf(text);
    expect(whole).toBeLessThan(100);
    // Eight times the text may take about eight times as long, never the 64 times a quadratic pattern would.
    const eighth = bestOf(text.slice(0, text.length / 8));
    expect(whole).toBeLessThan(Math.max(5, eighth) * 24);
  });
});
