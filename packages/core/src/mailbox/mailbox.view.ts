/** A mailbox as the API shows it (toMailbox, in mailbox/index.ts): never its credentials. */
import * as z from 'zod';
import { MailboxAuth, MailboxProvider, MailboxStatus } from './entity.ts';

export const MailboxView = z.object({
  id: z.string(),
  email: z.string(),
  domainId: z.string(),
  provider: MailboxProvider,
  status: MailboxStatus,
  auth: MailboxAuth.optional(),
  dailyCap: z.int(),
  smtpHost: z.string().nullish(),
  smtpPort: z.int().nullish(),
  imapHost: z.string().nullish(),
  imapPort: z.int().nullish(),
  authUsername: z.string().nullish(),
  senderName: z.string().nullish(),
  lastError: z.string().optional(),
  nextSlotAt: z.number().optional(),
  lastSendStartedAt: z.number().optional(),
  connectedAt: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type MailboxView = z.infer<typeof MailboxView>;
