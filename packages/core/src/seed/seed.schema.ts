import * as z from 'zod';
import { Email } from '../validate.ts';
import { Host, Port } from '../mailbox/mailbox.schema.ts';

/** The mailbox providers a seed inbox stands for; byProvider in the placement rollup is keyed by these. */
export const SeedProvider = z.enum(['GOOGLE', 'MICROSOFT', 'YAHOO', 'APPLE', 'ZOHO', 'OTHER'], {
  error: 'must be GOOGLE, MICROSOFT, YAHOO, APPLE, ZOHO or OTHER',
});
export type SeedProvider = z.infer<typeof SeedProvider>;

export const CreateSeed = z.strictObject({
  email: Email,
  /** Inferred from the address (gmail.com is GOOGLE, outlook.com is MICROSOFT...) when left out. */
  provider: SeedProvider.optional(),
  /** The provider's IMAP server is known for the big five; any other needs its host. */
  imapHost: Host.optional(),
  imapPort: Port.optional(),
  username: z.string({ error: 'must be a string' }).trim().min(1, { error: 'cannot be blank' }).max(320).optional(),
  password: z.string({ error: 'must be a string' }).min(1, { error: 'cannot be empty' }).max(1024),
  /** The spam folder's name when the server neither marks it \Junk nor calls it Spam, Junk or Bulk. */
  spamFolder: z.string({ error: 'must be a string' }).trim().min(1, { error: 'cannot be blank' }).max(200).optional(),
});
export type CreateSeed = z.infer<typeof CreateSeed>;
