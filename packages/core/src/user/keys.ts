import type { Key } from '../ports/store.ts';

/** Engine users (API sign-in), by normalized email. */
export const userKey = (email: string): Key => ({ pk: `USER#${email}`, sk: 'USER' });

/** Failed-login bookkeeping, kept by address whether or not an account exists (no enumeration). */
export const loginGuardKey = (email: string): Key => ({ pk: `LOGIN#${email}`, sk: 'GUARD' });
