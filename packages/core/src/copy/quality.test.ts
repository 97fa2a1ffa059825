import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUALITY_PENALTIES, SPAM_TRIGGERS, contentQuality, explainQuality } from './quality.ts';

const body = (words: number): string => Array.from({ length: words }, (_, i) => `word${i}`).join(' ');

const clean = {
  subject: 'Quick question about {{company}}',
  template: [
    'Hi {{firstName}},',
    '',
    'I read your post about moving {{company}} to a four-day week and wondered how the support rota handled it.',
    'We help small teams plan cover without spreadsheets. Would a short call next week be useful?',
    '',
    'Thanks,',
    '{{senderName}}',
  ].join('\n'),
};

describe('contentQuality', () => {
  it('scores a clean, short, personal email at 85 or more', () => {
    expect(contentQuality(clean)).toBeGreaterThanOrEqual(85);
    expect(explainQuality(clean)).toEqual({ score: 100, reasons: [] });
  });

  it('scores a spammy email under 50', () => {
    const spammy = { subject: 'You are a WINNER', template: 'FREE!!! click here http://a http://b http://c' };
    expect(contentQuality(spammy)).toBeLessThan(50);
    const { reasons } = explainQuality(spammy);
    expect(reasons).toContain('The copy uses 3 spam-trigger words or phrases (winner, free, click here) (-24).');
    expect(reasons).toContain('The copy has 3 links, more than 2 (-10).');
  });

  it('goes down when a spam word is added', () => {
    const before = contentQuality(clean);
    const after = contentQuality({ ...clean, template: clean.template.replace('a short call', 'a short, no obligation call') });
    expect(after).toBe(before - QUALITY_PENALTIES.spamWord.points);
    expect(contentQuality({ ...clean, subject: 'Urgent: quick question' })).toBeLessThan(before);
  });

  it('goes down by 30 for invalid spintax, naming the position, without throwing', () => {
    const report = explainQuality({ ...clean, template: `{Hi|Hello ${clean.template}` });
    expect(report.score).toBe(100 - QUALITY_PENALTIES.invalidSpintax.points);
    expect(report.reasons).toEqual(['The template has invalid spintax: the { at character 1 is never closed (-30).']);
    expect(contentQuality({ ...clean, subject: 'Hi} there' })).toBe(70);
  });

  it('takes 10, not 30, for a malformed placeholder', () => {
    const report = explainQuality({ ...clean, template: clean.template.replace('{{firstName}}', '{{ }}') });
    expect(report.score).toBe(90);
    expect(report.reasons).toEqual(['The template has a malformed placeholder {{ }} (-10).']);
  });

  it('gives empty or missing copy a low score that is still a number', () => {
    expect(contentQuality({})).toBe(35);
    expect(contentQuality({ subject: null, template: null })).toBe(35);
    expect(contentQuality({ subject: '  ', template: '' })).toBe(35);
    expect(explainQuality({}).reasons).toEqual(['The subject is empty (-15).', 'The template has no words (-50).']);
  });

  it('penalizes length: short and long bodies, long subjects', () => {
    expect(explainQuality({ subject: 'Hello', template: body(19) }).reasons).toEqual([
      'The template can be as short as 19 words, under 20 (-15).',
    ]);
    expect(contentQuality({ subject: 'Hello', template: body(20) })).toBe(100);
    expect(contentQuality({ subject: 'Hello', template: body(200) })).toBe(100);
    expect(contentQuality({ subject: 'Hello', template: body(201) })).toBe(85);
    expect(contentQuality({ subject: 'a'.repeat(60), template: body(30) })).toBe(100);
    expect(contentQuality({ subject: 'a'.repeat(61), template: body(30) })).toBe(90);
  });

  it('measures length on the shortest and longest variants, not all alternatives together', () => {
    // Flattened, this is 30 words; any one variant is 15.
    expect(contentQuality({ subject: 'Hello', template: `{${body(15)}|${body(15)}}` })).toBe(85);
    // Flattened, this is 150 words; no variant is over 200 but the short one is under 20.
    expect(explainQuality({ subject: 'Hello', template: `{${body(5)}|${body(145)}}` }).reasons).toEqual([
      'The template can be as short as 5 words, under 20 (-15).',
    ]);
  });

  it('counts spam words in every alternative', () => {
    const template = `{Hello|Act now} ${body(25)}`;
    expect(contentQuality({ subject: 'Hello', template })).toBe(92);
  });

  it('counts ! and links on the worst variant', () => {
    expect(contentQuality({ subject: 'Hello', template: `{Hi!|Hello!} ${body(25)}` })).toBe(100);
    expect(contentQuality({ subject: 'Hello!', template: `{Hi!|Hello} ${body(25)}` })).toBe(95);
    const links = `{https://a.test https://b.test https://c.test|www.a.test} ${body(25)}`;
    expect(contentQuality({ subject: 'Hello', template: links })).toBe(90);
  });

  it('counts https://www. as one link', () => {
    expect(contentQuality({ subject: 'Hello', template: `https://www.a.test https://www.b.test ${body(25)}` })).toBe(100);
  });

  it('matches triggers as whole words, case-insensitively, phrases across spaces or hyphens', () => {
    const score = (template: string): number => contentQuality({ subject: 'Hello', template: `${template} ${body(25)}` });
    expect(score('freedom cashew')).toBe(100);
    expect(score('Feel free to reply')).toBe(100);
    expect(score('Risk-Free trial')).toBe(92);
    expect(score('risk  free trial')).toBe(92);
    expect(score('100% sure, $$$')).toBe(84);
    expect(score('CLICK   HERE')).toBe(92 - 10);
  });

  it('caps spam words at 40 and capitals at 20', () => {
    const spam = SPAM_TRIGGERS.slice(0, 10).join(', ');
    const many = explainQuality({ subject: 'Hello', template: `${spam} ${body(25)}` });
    expect(many.score).toBe(60);
    expect(many.reasons[0]).toMatch(/^The copy uses 10 spam-trigger words or phrases \(.*\) \(-40\)\.$/);
    const caps = explainQuality({ subject: 'Hello', template: `ALPHA BRAVO DELTA ECHO GOLF HOTEL ${body(25)}` });
    expect(caps).toEqual({ score: 80, reasons: ['The copy has 6 words in capitals (ALPHA, BRAVO, DELTA, ECHO, GOLF, HOTEL) (-20).'] });
    expect(contentQuality({ subject: 'Hello', template: `IBM and AWS ${body(25)}` })).toBe(100);
  });

  it('is deterministic and always an integer from 0 to 100', () => {
    const inputs = [
      {},
      clean,
      { subject: 'FREE CASH WINNER!!!', template: `${SPAM_TRIGGERS.join(' ')} ${'http://x.test '.repeat(20)} {{ }} {oops` },
      { subject: '{'.repeat(50), template: '}'.repeat(50) },
      { subject: 'x', template: 'a'.repeat(100_001) },
      { subject: '😀'.repeat(100), template: `{${'{a|'.repeat(20)}` },
    ];
    for (const input of inputs) {
      const score = contentQuality(input);
      expect(Number.isInteger(score)).toBe(true);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(100);
      expect(contentQuality(input)).toBe(score);
      expect(explainQuality(input).score).toBe(score);
    }
    expect(contentQuality(inputs[2]!)).toBe(0);
  });
});

describe('docs/copy.md', () => {
  const doc = readFileSync(new URL('../../../../docs/copy.md', import.meta.url), 'utf8');

  it('prints every penalty with the points the code takes', () => {
    for (const [key, penalty] of Object.entries(QUALITY_PENALTIES)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${key}\` |`));
      expect(row, key).toBeDefined();
      const points = 'max' in penalty ? `-${penalty.points} each, at most -${penalty.max}` : `-${penalty.points}`;
      // "-10 each" and "-10" say the same for a penalty without a ceiling.
      expect(
        row!
          .split('|')[2]!
          .trim()
          .replace(/ each$/, ''),
        key,
      ).toBe(points);
    }
  });

  it('lists every spam trigger', () => {
    const listed = doc.slice(doc.indexOf('The triggers are:')).replace(/\s+/g, ' ');
    for (const trigger of SPAM_TRIGGERS) expect(listed, trigger).toContain(` ${trigger}${trigger === 'dear friend' ? '.' : ','}`);
  });
});
