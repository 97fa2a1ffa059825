import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { Email, verb } from '../validate.ts';
import { queryAll } from '../collections.ts';
import { loginGuards, userKey } from './keys.ts';
import { hashPassword } from './password.ts';
import { fromItem } from './entity.ts';

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
  const nowMs = deps.wallClock.now();
  const now = new Date(nowMs).toISOString();
  const stored = await deps.store.get(userKey(input.email));
  const existing = stored && fromItem(stored);
  await deps.store.put({
    ...userKey(input.email),
    email: input.email,
    passwordHash: await hashPassword(input.password),
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
    // A reset ends every token issued before it (auth.authenticate compares their issue time).
    ...(existing ? { passwordChangedAt: nowMs } : {}),
  });
  // A reset also lifts a lockout: whoever locked it out no longer holds the password that matters.
  if (existing)
    for (const guard of await queryAll(deps.store, loginGuards(input.email))) await deps.store.delete({ pk: guard.pk, sk: guard.sk });
  return { email: input.email, created: !existing };
});
