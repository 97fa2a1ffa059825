/**
 * Signing in to a mailbox's servers (the adapter is packages/mail). Core
 * decides whether to check and what to tell the user; the adapter only
 * tries and classifies what went wrong.
 */
export type SignInFailure = 'auth' | 'dns' | 'connect' | 'timeout' | 'other';
export type SignInResult = { ok: true } | { ok: false; reason: SignInFailure; detail: string };

export interface ServerLogin {
  host: string;
  port: number;
  user: string;
  pass: string;
  /** An OAuth access token: when set, the adapter signs in with XOAUTH2 instead of the password. */
  accessToken?: string;
  timeoutMs?: number;
}

export interface SignInChecker {
  smtp(login: ServerLogin): Promise<SignInResult>;
  imap(login: ServerLogin): Promise<SignInResult>;
}
