/** The engine's user and the sign-in guard kept beside it: one shape each, read once from the row. */
import { z } from 'zod';
import type { Item } from '../ports/store.ts';

export const User = z.looseObject({
  email: z.string(),
  /** scrypt, in the format of user/password.ts. */
  passwordHash: z.string(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  /** Seconds since the epoch of the last password reset: tokens issued before it no longer sign in. */
  passwordChangedAt: z.number().optional(),
});
export type User = z.infer<typeof User>;

export const fromItem = (item: Item): User => User.parse(item);

/**
 * The streak of failed sign-ins of an address (kept whether or not the
 * account exists): an atomic count, and the wall ms a lockout lasts to.
 */
export const LoginGuard = z.looseObject({
  attempts: z.number().default(0),
  lockedUntil: z.number().optional(),
  expiresAt: z.number().optional(),
});
export type LoginGuard = z.infer<typeof LoginGuard>;

export const loginGuardFromItem = (item: Item): LoginGuard => LoginGuard.parse(item);
