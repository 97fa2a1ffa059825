/**
 * Reading a reply's meaning from its own words (docs/reply-statuses.md): the
 * quoted original, the signature and any disclaimer are cut first
 * (own-words.ts), then the engine's own rules (six languages, no outside
 * call) decide a status (rules.ts), find a referral (referral.ts) and a
 * follow-up date (follow-up.ts). Pure and fast: it runs inline on every
 * reply the poller records.
 */
import type { Referral, RuleStatus } from '../reply-status.ts';
import { ownWordsOf } from './own-words.ts';
import { statusOf } from './rules.ts';
import { referralOf } from './referral.ts';
import { followUpOn } from './follow-up.ts';

export interface ReplyInput {
  /** The whole plain-text body as received: own words, signature, quoted original (LF line ends). */
  text: string;
  /** The replier's address (bare, lower-case) and display name, when known: never a referral. */
  fromEmail?: string;
  fromName?: string;
  /** When the reply was written (its Date header, else its arrival), epoch ms: follow-up dates count from its UTC day. */
  writtenAt: number;
  /** Addresses of our own side (the sending mailbox, the lead's address when a colleague answers): never a referral. */
  ownAddresses?: string[];
}

export interface ReplyReading {
  status: RuleStatus;
  /** Someone else's address the reply's own words give, whatever the status; null otherwise. */
  referral: Referral | null;
  /** NOT_NOW only: the day (YYYY-MM-DD) the reply names or clearly implies; null otherwise. */
  followUpOn: string | null;
  /** The reply's own words: what decided the status (quote, signature and disclaimer cut). */
  ownWords: string;
}

export function readReply(input: ReplyInput): ReplyReading {
  const ownWords = ownWordsOf(input.text, input.fromName);
  const status = statusOf(ownWords);
  const excluded = [input.fromEmail, ...(input.ownAddresses ?? [])].filter((a): a is string => !!a);
  return {
    status,
    referral: referralOf(ownWords, excluded, input.fromName),
    followUpOn: status === 'NOT_NOW' ? followUpOn(ownWords, input.writtenAt) : null,
    ownWords,
  };
}
