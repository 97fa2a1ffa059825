/** The engine's codes in the words the console shows. */
import type { Schemas } from '@outbound/client/index';

export type ReplyStatus = Schemas['Reply']['status'];

export const REPLY_STATUSES: Record<ReplyStatus, string> = {
  INTERESTED: 'Interested',
  QUESTION: 'Question',
  NOT_NOW: 'Not now',
  NOT_INTERESTED: 'Not interested',
  WRONG_PERSON: 'Wrong person',
  UNSUBSCRIBE: 'Unsubscribe',
  NEEDS_REVIEW: 'Needs review',
  MEETING_BOOKED: 'Meeting booked',
  WON: 'Won',
  LOST: 'Lost',
};

export const CAMPAIGN_STATUSES: Record<Schemas['Campaign']['status'], string> = {
  DRAFT: 'Draft',
  ACTIVE: 'Sending',
  PAUSED: 'Paused',
  ARCHIVED: 'Archived',
};

/** What holds a lead's next email, by next-send's `rule` (docs/api.md, next-send). */
export const HOLD_RULES: Record<string, string> = {
  window: 'Outside the sending window',
  waitDays: 'Waiting between steps',
  cadence: 'Waiting for the mailbox’s next slot',
  dailyCap: 'The mailbox reached its daily cap',
  paused: 'The campaign or the send queue is paused',
  breaker: 'Paused for the bounce rate',
  outOfOffice: 'The lead is out of office',
  suppressed: 'The address is suppressed',
  finished: 'The sequence has ended',
  mailbox: 'The mailbox cannot send',
  domain: 'The domain has no mailing address',
};
