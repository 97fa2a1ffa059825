import type { IndexQuery, Key } from '../ports/store.ts';

/** The bounce circuit breaker of one campaign/mailbox pair: its state and its window's epoch. */
export const pairKey = (campaignId: string, mailboxId: string): Key => ({ pk: `BREAKER#${campaignId}#${mailboxId}`, sk: 'PAIR' });
/** Sends and bounces of a pair on one day, within one epoch (a resume starts a new epoch). */
export const pairDayKey = (campaignId: string, mailboxId: string, epoch: number, day: string): Key => ({
  pk: `BREAKER#${campaignId}#${mailboxId}`,
  sk: `DAY#${epoch}#${day}`,
});

/** gsi2: the tripped pairs of a campaign, so a resume finds them all. */
export const trippedPairs = (campaignId: string) => `CAMPAIGN#${campaignId}#TRIPPED`;
export const trippedIndex = (campaignId: string, mailboxId: string) => ({ gsi2pk: trippedPairs(campaignId), gsi2sk: mailboxId });
/** A pair closed again (a resume) leaves the tripped list. */
export const withoutTrippedIndex = () => ['gsi2pk', 'gsi2sk'];

/** Access pattern: the tripped pairs of a campaign. */
export const trippedPairsOf = (campaignId: string): IndexQuery => ({ index: 'gsi2', pk: trippedPairs(campaignId) });
