import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** Opaque identifiers: ULIDs, which sort by creation time, so lists come out oldest first. */
export const newId = (): string => ulid();

/**
 * A Message-ID for an email the engine sends: 128 random bits, lower-case
 * hex, at the sending domain. Unguessable on purpose: a reply or a report is
 * tied to a lead by the Message-ID it quotes, so an id a stranger could
 * derive from a neighbour's (a ULID of the same millisecond) would let them
 * thread mail under another lead's email or forge its bounce.
 */
export const messageIdAt = (domain: string): string => `${randomBytes(16).toString('hex')}@${domain}`;
