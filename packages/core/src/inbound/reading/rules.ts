/**
 * The status the rules give a reply's own words. An explicit removal
 * request always wins; otherwise each concern (wrong person, timing,
 * decline, interest, question) gives its signals and conflicting ones
 * leave NEEDS_REVIEW: a wrong status is worse than none.
 */
import type { RuleStatus } from '../reply-status.ts';
import { fold } from './fold.ts';
import { asksRemoval } from './removal.ts';
import { wrongPersonSignals } from './wrong-person.ts';
import { timingSignals } from './timing.ts';
import { declineSignals } from './decline.ts';
import { showsInterest } from './interest.ts';
import { asksQuestion } from './question.ts';

/** Own words are read from their first few thousand characters: requests come first, and it bounds the work. */
const READ_CHARS = 6000;

export interface Signals {
  removal: boolean;
  wrongPerson: { strong: boolean; weak: boolean };
  timing: { strong: boolean; weak: boolean; context: boolean };
  decline: { clear: boolean; soft: boolean };
  interest: boolean;
  question: boolean;
}

/** Every concern's reading of the own words, for the decision and for tests that explain it. */
export function signalsOf(ownWords: string): Signals {
  const folded = fold(ownWords.slice(0, READ_CHARS)).replace(/\s+/g, ' ').trim();
  return {
    removal: asksRemoval(folded),
    wrongPerson: wrongPersonSignals(folded),
    timing: timingSignals(folded),
    decline: declineSignals(folded),
    interest: showsInterest(folded),
    question: asksQuestion(folded),
  };
}

/** The one status the signals support, or NEEDS_REVIEW when they are empty or pull apart. */
export function decide(s: Signals): RuleStatus {
  if (s.removal) return 'UNSUBSCRIBE';
  if (s.wrongPerson.strong) return 'WRONG_PERSON';
  const { timing, decline } = s;
  if (s.wrongPerson.weak && !s.interest && !timing.strong && !timing.weak && !decline.clear) return 'WRONG_PERSON';
  if (timing.strong) return 'NOT_NOW';
  if (timing.weak) return s.interest || decline.clear ? 'NEEDS_REVIEW' : 'NOT_NOW';
  if (s.interest) return decline.clear ? 'NEEDS_REVIEW' : 'INTERESTED';
  if (decline.clear) return 'NOT_INTERESTED';
  if (s.question) return 'QUESTION';
  if (timing.context) return 'NOT_NOW';
  if (decline.soft) return 'NOT_INTERESTED';
  return 'NEEDS_REVIEW';
}

export function statusOf(ownWords: string): RuleStatus {
  return ownWords.trim() ? decide(signalsOf(ownWords)) : 'NEEDS_REVIEW';
}
