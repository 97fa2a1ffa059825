import * as z from 'zod';
import { Email } from '../validate.ts';
import { DEFAULT_DAILY_CAP, MailboxProvider as StoredProvider } from './entity.ts';

export { MailboxStatus } from './entity.ts';

export const MailboxProvider = z.enum(StoredProvider.options, {
  error: 'must be SMTP_CUSTOM, GOOGLE or MICROSOFT',
});
/** What a user may set by PATCH; ERROR is the engine's word for a failed sign-in or a revoked connection. */
export const SettableStatus = z.enum(['ACTIVE', 'WARMING', 'PAUSED'], { error: 'must be ACTIVE, WARMING or PAUSED' });

export const Host = z
  .string({ error: 'must be a string' })
  .trim()
  .toLowerCase()
  .min(1, { error: 'cannot be blank' })
  .max(253)
  .regex(/^[a-z0-9.-]+$|^\[?[0-9a-f:]+\]?$/, { error: 'must be a host name or an IP address' });
export const Port = z
  .number({ error: 'must be a whole number' })
  .int({ error: 'must be a whole number' })
  .min(1)
  .max(65535, { error: 'must be a port from 1 to 65535' });
export const DailyCap = z
  .number({ error: 'must be a whole number' })
  .int({ error: 'must be a whole number' })
  .min(1, { error: 'must be from 1 to 1000' })
  .max(1000, { error: 'must be from 1 to 1000' });
export const SenderName = z
  .union([z.string({ error: 'must be a string or null' }).max(80, { error: 'must be at most 80 characters' }), z.null()])
  .transform((s) => (s === null || s.trim() === '' ? null : s.trim()));

export const CreateMailbox = z.strictObject({
  email: Email,
  domainId: z.string({ error: 'must be a string' }).min(1, { error: 'is required' }).max(200, { error: 'must be at most 200 characters' }),
  provider: MailboxProvider.default('SMTP_CUSTOM'),
  dailyCap: DailyCap.default(DEFAULT_DAILY_CAP),
  smtpHost: Host.optional(),
  smtpPort: Port.optional(),
  imapHost: Host.optional(),
  imapPort: Port.optional(),
  authUsername: z.string({ error: 'must be a string' }).trim().min(1).max(320).optional(),
  authPassword: z.string({ error: 'must be a string' }).min(1, { error: 'cannot be empty' }).max(1024).optional(),
  senderName: SenderName.optional(),
});
export type CreateMailbox = z.infer<typeof CreateMailbox>;

export const UpdateMailbox = z.strictObject({
  status: SettableStatus.optional(),
  dailyCap: DailyCap.optional(),
  senderName: SenderName.optional(),
});
