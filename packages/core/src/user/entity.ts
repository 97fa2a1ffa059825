/** The engine's user and the sign-in guard kept beside it: one shape each, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';

export const User = z.looseObject({
  email: z.string(),
  /** scrypt, in the format of user/password.ts. */
  passwordHash: z.string(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  /** When the password was last reset (epoch ms; seconds in rows written before 1.10): tokens issued before it no longer sign in. */
  passwordChangedAt: z.number().optional(),
  /** Tags of the clients that signed in lately (never braked: auth BRAKE). */
  knownClients: z.array(z.string()).optional(),
});
export type User = z.infer<typeof User>;

export const fromItem = (item: Item): User => User.parse(item);

/** A reset time in ms, from rows that kept it in seconds too (no epoch-ms time is below 10^11). */
export const changedAtMs = (at: number): number => (at < 1e11 ? at * 1000 : at);

/**
 * The streak of failed sign-ins of an address (kept whether or not the
 * account exists): an atomic count, and the wall ms a lockout lasts to.
 */
export const LoginGuard = z.looseObject({
  attempts: z.number().default(0),
  lockedUntil: z.number().optional(),
  /** The brake: wall ms before which no unknown client's password is checked. */
  nextCheckAt: z.number().optional(),
  expiresAt: z.number().optional(),
});
export type LoginGuard = z.infer<typeof LoginGuard>;

export const loginGuardFromItem = (item: Item): LoginGuard => LoginGuard.parse(item);
