import { signInChecker } from '@outbound/mail/checker';
import { hostResolver } from '@outbound/mail/dns';
import { smtpMailer } from '@outbound/mail/mailer';
import { imapReader } from '@outbound/mail/sent-folder';
import type { Kit } from '../deps.ts';

/** Wait per SMTP phase: a send fits the sender's SMTP budget (sending/sender.ts: 40 s) inside the Lambda's 90 s. */
export const SMTP_PHASE_TIMEOUT_MS = 10_000;

/**
 * SMTP and IMAP (nodemailer, imapflow, mailparser): signing in to mailboxes
 * and seeds, sending, reading inboxes, Sent folders and seed folders. The
 * heaviest kit, carried only by the functions that talk to mail servers;
 * every lookup they make goes through DNS_SERVERS when it is set.
 */
export const mailKit: Kit = {
  name: 'mail',
  make: ({ config, log }) => {
    const resolver = hostResolver(config.dnsServers);
    return {
      signIn: signInChecker(config.dnsServers),
      mailer: smtpMailer({ resolver, log, timeoutMs: SMTP_PHASE_TIMEOUT_MS }),
      mailReader: imapReader({ resolver }),
    };
  },
};
