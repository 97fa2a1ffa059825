/** A reply as GET /v1/replies shows it (toReply, in inbound/inbound.schema.ts). */
import * as z from 'zod';
import { Referral, ReplyStatus, StatusSource } from './reply-status.ts';

export const ReplyView = z.object({
  id: z.string(),
  campaignId: z.string(),
  leadId: z.string(),
  mailboxId: z.string(),
  fromEmail: z.string(),
  subject: z.string(),
  snippet: z.string(),
  receivedAt: z.iso.datetime(),
  status: ReplyStatus.describe('What the reply means: read by the rules (or the AI) from its own words, or set by a person'),
  statusSource: StatusSource.describe('Who gave the status; a person’s is never changed by the rules or the AI'),
  referral: Referral.nullable().describe('Someone else’s address the reply gives ("talk to jana@acme.com"), whatever the status'),
  followUpOn: z.iso.date().nullable().describe('NOT_NOW: the day the reply names or clearly implies (YYYY-MM-DD)'),
  read: z.boolean(),
  snoozedUntil: z.iso.datetime().nullable().describe('Left out of unread=true until then (engine time)'),
});
export type ReplyView = z.infer<typeof ReplyView>;

export const ReplyPageView = z.object({ replies: z.array(ReplyView), nextCursor: z.string().nullable() });
export type ReplyPageView = z.infer<typeof ReplyPageView>;
