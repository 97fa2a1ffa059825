import type { Deps } from '../deps.ts';
import { ValidationError } from '../errors.ts';
import type { ServerLogin, SignInResult } from '../ports/mail.ts';
import type { CreateMailbox } from './mailbox.schema.ts';

/** Hosts under these reserved top-level domains are never contacted (RFC 2606; docs/api.md, Mailboxes). */
const RESERVED_TLD = /\.(test|example|invalid)\.?$/i;
export const isReservedHost = (host: string) => RESERVED_TLD.test(host) || /^(test|example|invalid)$/i.test(host);

export const SIGN_IN_TIMEOUT_MS = 10_000;
const DEFAULT_PORTS = { smtp: 587, imap: 993 } as const;

const what = { smtp: 'SMTP', imap: 'IMAP' } as const;

/** A plain sentence for the user; the server's own words go to the log only. */
export function signInSentence(kind: 'smtp' | 'imap', login: ServerLogin, result: Exclude<SignInResult, { ok: true }>): string {
  const name = what[kind];
  switch (result.reason) {
    case 'auth':
      return `The ${name} server refused the sign-in: check the username and password.`;
    case 'dns':
      return `The ${name} host ${login.host} does not resolve: check its name.`;
    case 'connect':
      return `Could not connect to the ${name} server at ${login.host} on port ${login.port}: check the host and port.`;
    case 'timeout':
      return `The ${name} server at ${login.host} on port ${login.port} did not answer within ${SIGN_IN_TIMEOUT_MS / 1000} seconds.`;
    default:
      return `Signing in to the ${name} server at ${login.host} on port ${login.port} failed. Check the settings, or ask your mail provider.`;
  }
}

/**
 * The sign-in check of POST /v1/mailboxes (docs/api.md, Mailboxes):
 * with a password and a host, sign in to each server once, concurrently,
 * 10 s each, as authUsername or the email; reserved hosts are skipped; when
 * both fail the SMTP failure is the one reported. Throws ValidationError (422).
 */
export async function checkSignIn(deps: Pick<Deps, 'signIn' | 'log'>, input: CreateMailbox): Promise<void> {
  if (!input.authPassword || !(input.smtpHost || input.imapHost)) return;
  const user = input.authUsername ?? input.email;
  const logins = (['smtp', 'imap'] as const).flatMap((kind) => {
    const host = kind === 'smtp' ? input.smtpHost : input.imapHost;
    if (!host || isReservedHost(host)) return [];
    const port = (kind === 'smtp' ? input.smtpPort : input.imapPort) ?? DEFAULT_PORTS[kind];
    return [{ kind, login: { host, port, user, pass: input.authPassword!, timeoutMs: SIGN_IN_TIMEOUT_MS } }];
  });
  const results = await Promise.all(logins.map(({ kind, login }) => deps.signIn[kind](login)));
  const failures = logins.flatMap((l, i) => {
    const r = results[i]!;
    return r.ok ? [] : [{ ...l, result: r }];
  });
  for (const f of failures) {
    deps.log.warn('mailbox sign-in check failed', {
      server: f.kind,
      host: f.login.host,
      port: f.login.port,
      reason: f.result.reason,
      detail: f.result.detail,
    });
  }
  const reported = failures.find((f) => f.kind === 'smtp') ?? failures[0];
  if (reported) throw new ValidationError(signInSentence(reported.kind, reported.login, reported.result));
}
