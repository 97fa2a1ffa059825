import { describe, expect, it } from 'vitest';
import { addMonths, followUpOn } from './follow-up.ts';

const ON = (day: string) => Date.parse(`${day}T15:30:00Z`);

describe('followUpOn', () => {
  it.each([
    ['Check back next quarter.', '2026-04-21', '2026-07-01'],
    ['Check back next quarter.', '2026-11-02', '2027-01-01'],
    ['Reach out in Q3.', '2026-01-27', '2026-07-01'],
    ['Reach out in Q1.', '2026-05-10', '2027-01-01'],
    ['Neem in het vierde kwartaal weer contact op.', '2026-01-29', '2026-10-01'],
    ['Melden Sie sich im dritten Quartal.', '2026-02-01', '2026-07-01'],
    ['Try me in September.', '2026-01-26', '2026-09-01'],
    ['Try me in September.', '2026-10-05', '2027-09-01'],
    ['Melden Sie sich bitte im Oktober noch einmal.', '2026-04-21', '2026-10-01'],
    ['Recontactez-moi en septembre.', '2026-03-01', '2026-09-01'],
    ['Escríbeme en septiembre.', '2026-03-01', '2026-09-01'],
    ['Neem in september contact op.', '2026-03-01', '2026-09-01'],
    ['Me procure em setembro.', '2026-03-01', '2026-09-01'],
    ['Reach back out in two weeks.', '2026-03-06', '2026-03-20'],
    ['Melden Sie sich in 3 Wochen.', '2026-03-06', '2026-03-27'],
    ['Recontactez-moi dans deux semaines.', '2026-03-06', '2026-03-20'],
    ['Vuelve a escribirme dentro de dos semanas.', '2026-03-06', '2026-03-20'],
    ['Neem over twee weken contact op.', '2026-03-06', '2026-03-20'],
    ['Me procure daqui a duas semanas.', '2026-03-06', '2026-03-20'],
    ['Ping me in 6 weeks.', '2026-01-14', '2026-02-25'],
    ['Recontactez-moi dans trois mois.', '2026-03-31', '2026-06-30'],
    ['Try again in 1 month.', '2026-01-31', '2026-02-28'],
    ['Try again in a month.', '2028-01-31', '2028-02-29'],
    ['Contact me next month.', '2026-03-18', '2026-04-01'],
    ['Let us talk again on 15 May.', '2026-03-18', '2026-05-15'],
    ['Melden Sie sich am 15. Mai wieder.', '2026-03-18', '2026-05-15'],
    ['Reach out on May 15th.', '2026-06-01', '2027-05-15'],
    ['We are in audits until the end of April. Try me again in May.', '2026-03-25', '2026-05-01'],
    ['We froze spend for Q2. Reach out in July.', '2026-02-04', '2026-07-01'],
  ])('%s (written %s) -> %s', (text, written, want) => {
    expect(followUpOn(text, ON(written))).toBe(want);
  });

  it.each([
    'Check back after the summer maybe.',
    'Feel free to come back when we are planning next year.',
    'Escríbeme después del verano.',
    'Maybe later.',
    'Not now, we are busy until the end of the month.',
    'You may reach out later.',
  ])('vague: %s -> null', (text) => {
    expect(followUpOn(text, ON('2026-03-10'))).toBeNull();
  });

  it('clamps the same day N months on to the month end', () => {
    expect(new Date(addMonths(Date.UTC(2026, 2, 31), 3)).toISOString().slice(0, 10)).toBe('2026-06-30');
    expect(new Date(addMonths(Date.UTC(2026, 7, 31), 6)).toISOString().slice(0, 10)).toBe('2027-02-28');
  });
});
