import type { IndexQuery, Key } from '../ports/store.ts';
import { timeKey } from '../sending/keys.ts';

/** A mailbox's INBOX reading: its cursor (UIDVALIDITY, last UID), its lease and when it is next due. */
export const inboxStateKey = (mailboxId: string): Key => ({ pk: `MAILBOX#${mailboxId}`, sk: 'INBOX' });

/**
 * Every Message-ID the engine sent, to the job, lead and campaign it belongs
 * to: a reply's In-Reply-To or References, and a report's returned original,
 * are looked up here. Lower-cased: some servers change the case of what they quote.
 */
export const sentMessageKey = (messageId: string): Key => ({ pk: `SENTMSG#${messageId.toLowerCase()}`, sk: 'SENTMSG' });

/** One classified inbound message (a reply, an auto-reply, a bounce or a complaint), keyed by a digest of its mailbox and identity. */
export const inboundKey = (id: string): Key => ({ pk: `INBOUND#${id}`, sk: 'INBOUND' });

/** gsi1: every reply, newest first by arrival; gsi2: a campaign's replies. Only replies carry these. */
export const ALL_REPLIES = 'REPLIES';
export const campaignReplies = (campaignId: string) => `CAMPAIGN#${campaignId}#REPLIES`;
/** gsi3: everything inbound about one lead, so an erase reaches it. */
export const leadInbound = (leadId: string) => `LEAD#${leadId}#INBOUND`;

export const replyIndexes = (id: string, campaignId: string, receivedAt: number) => ({
  gsi1pk: ALL_REPLIES,
  gsi1sk: `${timeKey(receivedAt)}#${id}`,
  gsi2pk: campaignReplies(campaignId),
  gsi2sk: `${timeKey(receivedAt)}#${id}`,
});
export const leadInboundIndex = (id: string, leadId: string, receivedAt: number) => ({
  gsi3pk: leadInbound(leadId),
  gsi3sk: `${timeKey(receivedAt)}#${id}`,
});
/**
 * gsi4: everything read from one sender, by the keyed hash of the address (as the suppression list
 * keeps it), so erasing an address reaches its messages whichever lead they were matched to (a
 * colleague's reply in a lead's thread).
 */
export const inboundFrom = (addressHash: string) => `INBOUNDFROM#${addressHash}`;
export const senderInboundIndex = (id: string, addressHash: string, receivedAt: number) => ({
  gsi4pk: inboundFrom(addressHash),
  gsi4sk: `${timeKey(receivedAt)}#${id}`,
});

/** Access patterns: every reply, a campaign's replies (both by arrival), what was read about one lead, and what came from one address. */
export const allReplies = (): IndexQuery => ({ index: 'gsi1', pk: ALL_REPLIES });
export const repliesOfCampaign = (campaignId: string): IndexQuery => ({ index: 'gsi2', pk: campaignReplies(campaignId) });
export const inboundOfLead = (leadId: string): IndexQuery => ({ index: 'gsi3', pk: leadInbound(leadId) });
export const inboundOfSender = (addressHash: string): IndexQuery => ({ index: 'gsi4', pk: inboundFrom(addressHash) });
/** The index attributes an erased record loses (it no longer names its sender). */
export const withoutSenderIndex = () => ['gsi4pk', 'gsi4sk'];

/**
 * Replies the rules could not read, waiting for the customer's AI (docs/inbound.md, Reply statuses): one
 * partition, read by the poller's schedule, a few items a day; an item holds the words the AI is shown and
 * goes once the AI answered (or could not).
 */
export const AI_READS = 'REPLYREADS';
export const aiReadKey = (replyId: string): Key => ({ pk: AI_READS, sk: replyId });

/** Where a reply's referral names an address (by its keyed hash, as the suppression list keeps it), so erasing that address reaches the reply. */
export const referralKey = (addressHash: string, replyId: string): Key => ({ pk: `REFERRAL#${addressHash}`, sk: `INBOUND#${replyId}` });
export const referralsOf = (addressHash: string) => `REFERRAL#${addressHash}`;
