import * as z from 'zod';

export const OAuthProvider = z.enum(['google', 'microsoft'], { error: 'must be google or microsoft' });

export const AuthorizeQuery = z.object({
  mailboxId: z.string({ error: 'is required' }).min(1, { error: 'is required' }).max(200, { error: 'must be at most 200 characters' }),
});

/** What the provider sends the browser back with: a code and our state, or an error (the person said no). */
export const CallbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(4096).optional(),
  error: z.string().max(200).optional(),
});

/** The state's signed claims: the mailbox, the provider, and the nonce naming the stored PKCE verifier. */
export const StateClaims = z.object({ mid: z.string(), prv: OAuthProvider, nonce: z.string() });
