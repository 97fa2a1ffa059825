import { signInChecker } from '@outbound/mail/checker';
import { hostResolver } from '@outbound/mail/dns';
import { imapReader } from '@outbound/mail/sent-folder';
import type { Kit } from '../deps.ts';
import { smtpKit } from './smtp.ts';

/**
 * SMTP and IMAP (nodemailer, imapflow, mailparser): signing in to mailboxes
 * and seeds, sending, reading inboxes, Sent folders and seed folders. The
 * heaviest kit, carried only by the functions that sign in to or read
 * mailboxes; every lookup they make goes through DNS_SERVERS when it is set.
 */
export const mailKit: Kit = {
  name: 'mail',
  make: (c) => ({
    ...smtpKit.make(c),
    signIn: signInChecker(c.config.dnsServers),
    mailReader: imapReader({ resolver: hostResolver(c.config.dnsServers) }),
  }),
};
