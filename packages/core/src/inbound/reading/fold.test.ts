import { describe, expect, it } from 'vitest';
import { anyOf, fold, foldLines } from './fold.ts';

describe('fold', () => {
  it('drops accents, lower-cases, unifies apostrophes and ß', () => {
    expect(fold('Désinscrivez-MOI, Grüße, don’t')).toBe("desinscrivez-moi, grusse, don't");
  });

  it('keeps line breaks, so lines can be folded at once', () => {
    expect(foldLines(['  Über ', 'Ça'])).toEqual(['uber', 'ca']);
  });

  it('matches whole words only', () => {
    const re = anyOf(['interessant']);
    expect(re.test('sehr interessant!')).toBe(true);
    expect(re.test('uninteressant')).toBe(false);
  });
});
