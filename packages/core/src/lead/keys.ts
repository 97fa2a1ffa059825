import type { IndexQuery, Key } from '../ports/store.ts';

export const leadKey = (id: string): Key => ({ pk: `LEAD#${id}`, sk: 'LEAD' });
/**
 * What stays of a hard-deleted lead: the salted hash of its address (as the
 * suppression list keys it), so an unsubscribe link already sent still works.
 */
export const deletedLeadKey = (id: string): Key => ({ pk: `LEAD#${id}`, sk: 'DELETED' });
export const ALL_LEADS = 'LEADS';
export const campaignLeads = (campaignId: string) => `CAMPAIGN#${campaignId}#LEADS`;
export const leadsByEmail = (email: string) => `LEADEMAIL#${email}`;

/**
 * gsi1: the leads of a campaign; gsi2: every lead row of one address (erase,
 * suppression across campaigns); gsi3: all leads. gsi4 (the leads pinned to
 * a mailbox) is set when a lead's first email is sent.
 */
export const leadIndexes = (id: string, campaignId: string, email: string) => ({
  gsi1pk: campaignLeads(campaignId),
  gsi1sk: id,
  gsi2pk: leadsByEmail(email),
  gsi2sk: id,
  gsi3pk: ALL_LEADS,
  gsi3sk: id,
});
export const pinnedLeads = (mailboxId: string) => `MAILBOX#${mailboxId}#LEADS`;

/** One lead per address per campaign (case-insensitive): a conditional put on this item. */
export const leadUniqueKey = (campaignId: string, email: string): Key => ({ pk: `LEADUNIQUE#${campaignId}#${email}`, sk: 'UNIQUE' });

/** The count of every lead row, for `total` without a campaign filter. */
export const allLeadsCounterKey: Key = { pk: 'COUNTER', sk: 'LEADS' };

/** Access patterns: a campaign's leads; every lead; every row of one address (lower-cased); the leads pinned to a mailbox. */
export const leadsOfCampaign = (campaignId: string): IndexQuery => ({ index: 'gsi1', pk: campaignLeads(campaignId) });
export const allLeads = (): IndexQuery => ({ index: 'gsi3', pk: ALL_LEADS });
export const rowsOfAddress = (email: string): IndexQuery => ({ index: 'gsi2', pk: leadsByEmail(email.trim().toLowerCase()) });
export const leadsPinnedTo = (mailboxId: string): IndexQuery => ({ index: 'gsi4', pk: pinnedLeads(mailboxId) });
