/**
 * Reading a reply's meaning from its own words (docs/inbound.md, "Reply
 * statuses"): the quoted original, the signature and any disclaimer are cut
 * first, then the engine's own rules (six languages, no outside call) decide
 * a status, find a referral and a follow-up date. Pure and fast: it runs
 * inline on every reply the poller records.
 */
import type { Referral, RuleStatus } from '../reply-status.ts';

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

/** Placeholder until the rules land: every reply needs a person's review. */
export function readReply(input: ReplyInput): ReplyReading {
  return { status: 'NEEDS_REVIEW', referral: null, followUpOn: null, ownWords: input.text };
}
