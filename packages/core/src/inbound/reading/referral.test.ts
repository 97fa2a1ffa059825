import { describe, expect, it } from 'vitest';
import { referralOf } from './referral.ts';

const ME = 'me@acme.example';

describe('referral', () => {
  it.each([
    ['Please talk to jana.novak@acme.example instead.', { email: 'jana.novak@acme.example', name: null }],
    ['Our buyer is Jana Novak (jana.novak@acme.example).', { email: 'jana.novak@acme.example', name: 'Jana Novak' }],
    ['Jana Novak <jnovak@acme.example> runs this.', { email: 'jnovak@acme.example', name: 'Jana Novak' }],
    ['Write to Tom Baker, he owns it: tbaker@acme.example', { email: 'tbaker@acme.example', name: 'Tom Baker' }],
    ['Zuständig ist Frau Ines Böhm (inesb@acme.example).', { email: 'inesb@acme.example', name: 'Ines Böhm' }],
    [
      'Neem contact op met Anouk van der Berg, anouk.vanderberg@acme.example.',
      { email: 'anouk.vanderberg@acme.example', name: 'Anouk van der Berg' },
    ],
    ['Écrivez à achats@acme.example, ils transmettront.', { email: 'achats@acme.example', name: null }],
    ['I left. Remove me and ask Jana Novak at JANA@ACME.EXAMPLE.', { email: 'jana@acme.example', name: 'Jana Novak' }],
  ])('%s', (text, want) => {
    expect(referralOf(text, [ME])).toEqual(want);
  });

  it("never gives the replier's own address or ours", () => {
    expect(referralOf('Reach me at me@acme.example or write to sales@vendor.example', [ME, 'sales@vendor.example'])).toBeNull();
  });

  it("skips an address alone on its line (a signature's) and the replier's other address", () => {
    expect(referralOf('Wrong person, sorry.\n\nJana Novak\njana.novak@acme.example', [ME])).toBeNull();
    expect(referralOf('Write to me at jana.novak@home.example instead.', [ME], 'Jana Novak')).toBeNull();
  });

  it('skips machine addresses', () => {
    expect(referralOf('Replies to noreply@acme.example are not read.', [ME])).toBeNull();
  });

  it('gives nothing when no address is written', () => {
    expect(referralOf('Talk to Deepak in our hardware group.', [ME])).toBeNull();
  });
});
