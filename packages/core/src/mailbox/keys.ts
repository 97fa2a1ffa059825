import type { IndexQuery, Key } from '../ports/store.ts';

export const mailboxKey = (id: string): Key => ({ pk: `MAILBOX#${id}`, sk: 'MAILBOX' });
export const MAILBOXES = 'MAILBOXES';
/** gsi1: all mailboxes; gsi2: the mailboxes of one domain. */
export const mailboxIndexes = (id: string, domainId: string) => ({
  gsi1pk: MAILBOXES,
  gsi1sk: id,
  gsi2pk: domainMailboxes(domainId),
  gsi2sk: id,
});
export const domainMailboxes = (domainId: string) => `DOMAIN#${domainId}#MAILBOXES`;
/** One mailbox per address: a conditional put on this item answers the 409. */
export const mailboxEmailKey = (email: string): Key => ({ pk: `MAILBOXEMAIL#${email}`, sk: 'UNIQUE' });

/** Access patterns: every mailbox; the mailboxes of one domain. */
export const allMailboxes = (): IndexQuery => ({ index: 'gsi1', pk: MAILBOXES });
export const mailboxesOfDomain = (domainId: string): IndexQuery => ({ index: 'gsi2', pk: domainMailboxes(domainId) });
