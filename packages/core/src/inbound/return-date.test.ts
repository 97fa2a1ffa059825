import { describe, expect, it } from 'vitest';
import { returnDateOf } from './return-date.ts';

// Tuesday 3 March 2026, 09:00 UTC.
const received = Date.UTC(2026, 2, 3, 9);

describe('returnDateOf: the day an out-of-office answer says the person is back', () => {
  it.each([
    ['Thank you for your email. I am out of the office and will be back on 12 March.', '2026-03-12'],
    ["I'm currently on vacation, returning March 16th. I'll reply when I'm back.", '2026-03-16'],
    ['I am away until Friday, March 13 with limited access to email.', '2026-03-13'],
    ['Out of office until 2026-03-20. For urgent matters contact sales@example.com.', '2026-03-20'],
    ['I am on leave and returning Monday.', '2026-03-09'],
    ['Ich bin nicht im Büro. I will be back on Monday, 23rd of March 2026.', '2026-03-23'],
    ['I will be out of the office until the 2nd of April.', '2026-04-02'],
  ])('%s', (text, expected) => {
    expect(returnDateOf(text, received)).toBe(expected);
  });

  it('reads a date without a year as the next one, across the new year', () => {
    expect(returnDateOf('Back on 5 January.', Date.UTC(2026, 11, 20))).toBe('2027-01-05');
  });

  it.each([
    ['Thanks for your message, I will get back to you soon.'],
    ['I am out of the office with limited access to email.'],
    ['Back on 31 February.'],
    ['Returning 2027-12-01, after my sabbatical.'],
    ['Our office was founded on 12 March 1999.'],
  ])('gives nothing for %s', (text) => {
    expect(returnDateOf(text, received)).toBeUndefined();
  });
});
