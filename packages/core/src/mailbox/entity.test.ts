/**
 * The stored shape of a mailbox: a row as older versions wrote it still reads
 * (with the defaults today's readers applied), and a parse keeps what the
 * shape does not name (keys, index attributes, counters), which the API
 * projection and conditional writes read as stored.
 */
import { describe, expect, it } from 'vitest';
import * as mailbox from './entity.ts';
import { mailboxKey } from './keys.ts';

describe('a stored mailbox', () => {
  const row = {
    ...mailboxKey('m1'),
    gsi1pk: 'MAILBOXES',
    gsi1sk: 'm1',
    id: 'm1',
    email: 'rep@sender.com',
    domainId: 'd1',
    status: 'ACTIVE',
    nextSlotAt: 5,
  };

  it('reads without the fields older rows lack, and the rules apply the defaults they always did', () => {
    const m = mailbox.fromItem(row);
    expect(mailbox.dailyCapOf(m)).toBe(mailbox.DEFAULT_DAILY_CAP);
    expect(mailbox.dailyCapOf(mailbox.fromItem({ ...row, dailyCap: null }))).toBe(mailbox.DEFAULT_DAILY_CAP);
    expect(mailbox.dailyCapOf(mailbox.fromItem({ ...row, dailyCap: 0 }))).toBe(1);
    expect(mailbox.hasCredentials(m)).toBe(false);
    expect(mailbox.hasCredentials(mailbox.fromItem({ ...row, auth: 'password', sealedPassword: 's' }))).toBe(true);
    expect(mailbox.canSend(m)).toBe(true);
    expect(mailbox.signInUser(m)).toBe('rep@sender.com');
  });

  it('keeps what the shape does not name, and writes back the row it read', () => {
    const m = mailbox.fromItem({ ...row, somethingNew: 1 });
    expect(m).toMatchObject({ pk: row.pk, gsi1sk: 'm1', somethingNew: 1 });
    expect(m).not.toHaveProperty('dailyCap');
    expect(mailbox.toItem(mailbox.fromItem(row))).toEqual({ ...row, gsi2pk: 'DOMAIN#d1#MAILBOXES', gsi2sk: 'm1' });
  });

  it('refuses a row that is not a mailbox', () => {
    expect(() => mailbox.fromItem({ ...row, status: 'SOMETHING' })).toThrow();
  });
});
