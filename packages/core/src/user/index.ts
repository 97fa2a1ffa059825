import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { Email, verb } from '../validate.ts';
import { userKey } from './keys.ts';
import { hashPassword } from './password.ts';

export const UserInput = z.object({
  email: Email,
  password: z.string().min(10, { error: 'must be at least 10 characters' }).max(1024),
});
export type UserInput = z.infer<typeof UserInput>;

/**
 * Creates the engine user, or resets the password of an existing one (the
 * ADMIN_EMAIL bootstrap and `npm run user -- add` both land here).
 */
export const upsert = verb(UserInput, async (deps: Pick<Deps, 'store' | 'wallClock'>, input) => {
  const now = new Date(deps.wallClock.now()).toISOString();
  const existing = await deps.store.get(userKey(input.email));
  await deps.store.put({
    ...userKey(input.email),
    email: input.email,
    passwordHash: await hashPassword(input.password),
    createdAt: (existing?.createdAt as string | undefined) ?? now,
    updatedAt: now,
  });
  return { email: input.email, created: !existing };
});
