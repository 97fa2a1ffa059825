/** A lead's conversation as GET /v1/leads/{id}/conversation shows it (conversation/index.ts). */
import * as z from 'zod';
import { ReplyStatus } from '../inbound/reply-status.ts';

export const OutMessageView = z.object({
  direction: z.literal('out'),
  step: z.int().nullable().describe('The campaign step (0 is the first email); null for a person’s answer'),
  messageId: z.string(),
  subject: z.string(),
  text: z
    .string()
    .describe(
      'The plain text as sent, footer included (at most 64 KB kept; empty when a crash left only the send’s claim to record it from)',
    ),
  at: z.iso.datetime(),
});

export const InMessageView = z.object({
  direction: z.literal('in'),
  replyId: z.string(),
  fromEmail: z.string(),
  subject: z.string(),
  text: z.string().describe('The plain text received (at most 64 KB kept)'),
  at: z.iso.datetime(),
  status: ReplyStatus,
});

export const MessageView = z.discriminatedUnion('direction', [OutMessageView, InMessageView]);
export type MessageView = z.infer<typeof MessageView>;

export const ConversationView = z.object({
  leadId: z.string(),
  campaignId: z.string(),
  mailboxId: z.string().nullable().describe('The pinned mailbox its emails go from; null before the first email'),
  messages: z.array(MessageView).describe('Oldest first'),
  nextCursor: z.string().nullable(),
});
export type ConversationView = z.infer<typeof ConversationView>;

export const AnswerView = z.object({ messageId: z.string().describe('The Message-ID the answer is sent with (no angle brackets)') });
export type AnswerView = z.infer<typeof AnswerView>;
