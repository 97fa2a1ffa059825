import type { Key } from '../ports/store.ts';

/** Engine users (API sign-in), by normalized email. */
export const userKey = (email: string): Key => ({ pk: `USER#${email}`, sk: 'USER' });

/** Failed-login bookkeeping, kept by address whether or not an account exists (no enumeration): the address's failures from every client (the brake) ... */
export const loginGuardKey = (email: string): Key => ({ pk: `LOGIN#${email}`, sk: 'GUARD' });
/** ... and one client's streak at the address (the lockout), by the client's tag. */
export const loginClientKey = (email: string, client: string): Key => ({ pk: `LOGIN#${email}`, sk: `CLIENT#${client}` });
/** Everything kept about an address's sign-ins: a reset clears it. */
export const loginGuards = (email: string) => ({ pk: `LOGIN#${email}` });
