/**
 * A stored mailbox: its one shape, read once from the row, and the rules that
 * belong to it (whether it may send, its daily cap, whether the engine can
 * sign in to it). Every part of the engine that asks one of these questions
 * asks here.
 */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { mailboxIndexes, mailboxKey } from './keys.ts';

/** A new mailbox sends at most this many emails a UTC day unless it says otherwise. */
export const DEFAULT_DAILY_CAP = 25;
/** The ports the engine uses when a mailbox names no port of its own. */
export const DEFAULT_SMTP_PORT = 587;
export const DEFAULT_IMAP_PORT = 993;

/** Where the mailbox lives: any SMTP server, or Google or Microsoft (which may connect through OAuth). */
export const MailboxProvider = z.enum(['SMTP_CUSTOM', 'GOOGLE', 'MICROSOFT']);
export type MailboxProvider = z.infer<typeof MailboxProvider>;
export const MailboxStatus = z.enum(['ACTIVE', 'WARMING', 'PAUSED', 'ERROR']);
export type MailboxStatus = z.infer<typeof MailboxStatus>;
/** How the engine signs in: a sealed password, OAuth (pending until consent completes), or not at all (a mailbox with no password). */
export const MailboxAuth = z.enum(['password', 'oauth', 'oauth-pending', 'none']);
export type MailboxAuth = z.infer<typeof MailboxAuth>;

/**
 * The row as stored. Loose: the row also carries its keys, index attributes
 * and the sender's bookkeeping, which the API projection and conditional
 * writes read as they are. Fields rows from older versions may lack are
 * optional, and their defaults are applied by the rules below, so what the
 * API echoes of a row is exactly what the row holds.
 */
export const Mailbox = z.looseObject({
  id: z.string(),
  email: z.string(),
  domainId: z.string(),
  provider: MailboxProvider.optional(),
  status: MailboxStatus,
  auth: MailboxAuth.optional(),
  dailyCap: z.number().nullish(),
  smtpHost: z.string().nullish(),
  smtpPort: z.number().nullish(),
  imapHost: z.string().nullish(),
  imapPort: z.number().nullish(),
  authUsername: z.string().nullish(),
  senderName: z.string().nullish(),
  sealedPassword: z.string().optional(),
  sealedRefreshToken: z.string().optional(),
  lastError: z.string().optional(),
  /** Engine ms before which the mailbox books no send (the cadence). */
  nextSlotAt: z.number().optional(),
  lastSendStartedAt: z.number().optional(),
  /** Whether the server files what it sends in Sent, as the poller found out (inbound/sent-filing.ts); absent until it could look. */
  sentFiling: z.object({ files: z.boolean(), checkedAt: z.string() }).optional(),
  /** When OAuth first connected: the inbox reading starts there. */
  connectedAt: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Mailbox = z.infer<typeof Mailbox>;

export const fromItem = (item: Item): Mailbox => Mailbox.parse(item);

/** The whole row: keys and indexes from the mailbox's own id and domain. */
export const toItem = (m: Mailbox): Item => ({ ...mailboxKey(m.id), ...mailboxIndexes(m.id, m.domainId), ...m });

/** ACTIVE and WARMING mailboxes send; PAUSED and ERROR ones do not (nor are they a sender for the launch check). */
export const canSend = (m: Pick<Mailbox, 'status'>): boolean => m.status === 'ACTIVE' || m.status === 'WARMING';

/** Providers that always file what they send in the Sent folder. */
export const knownToFileSentMail = (m: Pick<Mailbox, 'provider'>): boolean => m.provider === 'GOOGLE' || m.provider === 'MICROSOFT';

/**
 * Whether the Sent folder can settle an unknown send outcome: the server files
 * sent mail (known for GOOGLE and MICROSOFT, found out for any other) and the
 * engine can read the folder over IMAP (a password or OAuth).
 */
export const filesSentMail = (m: Mailbox): boolean =>
  (knownToFileSentMail(m) || m.sentFiling?.files === true) && Boolean(m.imapHost) && hasCredentials(m);

/** Sends a UTC day at most. */
export const dailyCapOf = (m: Pick<Mailbox, 'dailyCap'>): number => Math.max(1, m.dailyCap ?? DEFAULT_DAILY_CAP);

/** Whether the engine can sign in at all: a password, or a finished OAuth connection. */
export const hasCredentials = (m: Pick<Mailbox, 'auth' | 'sealedPassword' | 'sealedRefreshToken'>): boolean =>
  (m.auth === 'password' && Boolean(m.sealedPassword)) || (m.auth === 'oauth' && Boolean(m.sealedRefreshToken));

/** The name the engine signs in as with a password: the username given, or the address. */
export const signInUser = (m: Pick<Mailbox, 'authUsername' | 'email'>): string => m.authUsername ?? m.email;
