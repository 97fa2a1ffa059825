import { describe, expect, it } from 'vitest';
import { fold } from './fold.ts';
import { negatedAt } from './negation.ts';

const at = (text: string, word: string) => {
  const folded = fold(text);
  return negatedAt(folded, folded.indexOf(word));
};

describe('negatedAt', () => {
  it.each([
    ['We are not interested', 'interested'],
    ['Wir sind nicht interessiert', 'interessiert'],
    ['Nous ne sommes pas intéressés', 'interesses'],
    ['No nos interesa', 'interesa'],
    ['Wij hebben geen interesse', 'interesse'],
    ['Não temos interesse', 'interesse'],
    ["Please don't remove me", 'remove'],
    ["I'm not sure we'd be interested", 'interested'],
  ])('%s: negated', (text, word) => {
    expect(at(text, word)).toBe(true);
  });

  it.each([
    ['No problem, send it over', 'send'],
    ['Not uninterested - send me the details', 'send'],
    ['Not cheap but interested', 'interested'],
    ['Sehr interessiert', 'interessiert'],
  ])('%s: affirmed', (text, word) => {
    expect(at(text, word)).toBe(false);
  });
});
