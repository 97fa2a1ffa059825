/** A reply as GET /v1/replies shows it (toReply, in inbound/inbound.schema.ts). */
import { z } from 'zod';

export const ReplyView = z.object({
  id: z.string(),
  campaignId: z.string(),
  leadId: z.string(),
  mailboxId: z.string(),
  fromEmail: z.string(),
  subject: z.string(),
  snippet: z.string(),
  receivedAt: z.iso.datetime(),
});
export type ReplyView = z.infer<typeof ReplyView>;

export const ReplyPageView = z.object({ replies: z.array(ReplyView), nextCursor: z.string().nullable() });
export type ReplyPageView = z.infer<typeof ReplyPageView>;
