/**
 * The rules that belong to a mailbox: whether it may send, its daily cap,
 * whether the engine can sign in to it. Every part of the engine that asks
 * one of these questions asks here.
 */

/** A new mailbox sends at most this many emails a UTC day unless it says otherwise. */
export const DEFAULT_DAILY_CAP = 25;

/** A stored mailbox, typed or as read (the rules below read only what they name). */
type Row = Record<string, unknown>;

/** ACTIVE and WARMING mailboxes send; PAUSED and ERROR ones do not (nor are they a sender for the launch check). */
export const canSend = (m: Row): boolean => m.status === 'ACTIVE' || m.status === 'WARMING';

/** Sends a UTC day at most. */
export const dailyCapOf = (m: Row): number => Math.max(1, Number(m.dailyCap ?? DEFAULT_DAILY_CAP));

/** Whether the engine can sign in at all: a password, or a finished OAuth connection. */
export const hasCredentials = (m: Row): boolean =>
  (m.auth === 'password' && Boolean(m.sealedPassword)) || (m.auth === 'oauth' && Boolean(m.sealedRefreshToken));
