import type { SignInChecker } from '@outbound/core/ports/mail';
import { hostResolver } from './dns.ts';
import { verifyImap, verifySmtp } from './signin.ts';

/** The SignInChecker port over nodemailer and imapflow, resolving through DNS_SERVERS when set. */
export function signInChecker(dnsServers?: string[]): SignInChecker {
  const resolver = hostResolver(dnsServers);
  return {
    smtp: (login) => verifySmtp({ ...login, resolver }),
    imap: (login) => verifyImap({ ...login, resolver }),
  };
}
