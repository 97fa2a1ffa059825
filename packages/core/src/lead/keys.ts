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
 * a mailbox) is set when a lead's first email is sent. `seq` (a ULID taken
 * when the row is stored) orders the lists oldest first: the id itself is
 * derived from the address, not from time.
 */
export const leadIndexes = (id: string, seq: string, campaignId: string, email: string) => ({
  gsi1pk: campaignLeads(campaignId),
  gsi1sk: seq,
  gsi2pk: leadsByEmail(email),
  gsi2sk: id,
  gsi3pk: ALL_LEADS,
  gsi3sk: seq,
});
export const pinnedLeads = (mailboxId: string) => `MAILBOX#${mailboxId}#LEADS`;
/** gsi4: the pin a lead's first email sets, so a deleted mailbox finds the sequences it must end. */
export const pinIndex = (mailboxId: string, leadId: string) => ({ gsi4pk: pinnedLeads(mailboxId), gsi4sk: leadId });
/** A lead whose sequence ended for good (suppressed, its mailbox gone) or that was erased leaves the pinned list. */
export const withoutPinIndex = () => ['gsi4pk', 'gsi4sk'];
/** An erased lead no longer names its address, so it leaves the address's list too. */
export const withoutAddressIndex = () => ['gsi2pk', 'gsi2sk'];

/**
 * One lead per address per campaign, as versions before derived lead ids kept
 * it (a separate item beside a row with a random id). Still read, so a lead
 * stored then is not added a second time under its derived id, and deleted
 * with its lead. Never written any more.
 */
export const legacyUniqueKey = (campaignId: string, email: string): Key => ({
  pk: `LEADUNIQUE#${campaignId}#${email.trim().toLowerCase()}`,
  sk: 'UNIQUE',
});

/**
 * An import's progress item, and one item per batch of rows it has stored
 * (what the batch counted, so a batch done twice is counted once).
 */
export const importKey = (importId: string): Key => ({ pk: `IMPORT#${importId}`, sk: 'IMPORT' });
export const importBatchKey = (importId: string, batch: number): Key => ({
  pk: `IMPORT#${importId}`,
  sk: `BATCH#${String(batch).padStart(6, '0')}`,
});
/** Held by the import storing rows into a campaign: two imports into one campaign take turns, so neither counts the other's rows. */
export const importLockKey = (campaignId: string): Key => ({ pk: `CAMPAIGN#${campaignId}`, sk: 'IMPORTLOCK' });
/**
 * A lead a single create or the webhook stored while an import held the
 * campaign: an import into a campaign that was empty does not look for
 * existing rows, so it settles these when it completes (the row is counted once).
 */
export const importLateKey = (importId: string, leadId: string): Key => ({ pk: `IMPORT#${importId}`, sk: `LATE#${leadId}` });
export const latesOfImport = (importId: string) => ({ pk: `IMPORT#${importId}`, skBeginsWith: 'LATE#' });
export const RUNNING_IMPORTS = 'IMPORTS#RUNNING';
/** Set while an import runs (sparse): the worker that resumes imports after a restart reads it. */
export const runningImportIndex = (importId: string) => ({ gsi3pk: RUNNING_IMPORTS, gsi3sk: importId });
/** Removed in the write that ends the import (COMPLETED or FAILED). */
export const withoutRunningImportIndex = () => ['gsi3pk', 'gsi3sk'];

/** The count of every lead row, for `total` without a campaign filter. */
export const allLeadsCounterKey: Key = { pk: 'COUNTER', sk: 'LEADS' };

/** Access patterns: a campaign's leads; every lead; every row of one address (lower-cased); the leads pinned to a mailbox. */
export const leadsOfCampaign = (campaignId: string): IndexQuery => ({ index: 'gsi1', pk: campaignLeads(campaignId) });
export const allLeads = (): IndexQuery => ({ index: 'gsi3', pk: ALL_LEADS });
export const rowsOfAddress = (email: string): IndexQuery => ({ index: 'gsi2', pk: leadsByEmail(email.trim().toLowerCase()) });
export const runningImports = (): IndexQuery => ({ index: 'gsi3', pk: RUNNING_IMPORTS });
export const batchesOfImport = (importId: string) => ({ pk: `IMPORT#${importId}`, skBeginsWith: 'BATCH#' });
export const leadsPinnedTo = (mailboxId: string): IndexQuery => ({ index: 'gsi4', pk: pinnedLeads(mailboxId) });
