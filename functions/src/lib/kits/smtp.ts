import { hostResolver } from '@outbound/mail/dns';
import { smtpMailer } from '@outbound/mail/mailer';
import type { Kit } from '../deps.ts';

/** Wait per SMTP phase: a send fits the sender's SMTP budget (sending/sender.ts: 40 s) inside the Lambda's 90 s. */
export const SMTP_PHASE_TIMEOUT_MS = 10_000;

/**
 * Sending alone (nodemailer): the sender's kit. The mail kit brings the same
 * mailer with the IMAP and MIME-parsing libraries, which only the functions
 * that sign in to or read mailboxes carry.
 */
export const smtpKit: Kit = {
  name: 'smtp',
  make: ({ config, log }) => ({ mailer: smtpMailer({ resolver: hostResolver(config.dnsServers), log, timeoutMs: SMTP_PHASE_TIMEOUT_MS }) }),
};
