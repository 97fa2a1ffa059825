/**
 * The stored shape of a lead: a row as older versions wrote it still reads
 * (with the defaults today's readers applied), and a parse keeps what the
 * shape does not name (keys, index attributes, counters), which the API
 * projection and conditional writes read as stored.
 */
import { describe, expect, it } from 'vitest';
import * as lead from './entity.ts';
import { leadKey } from './keys.ts';

describe('a stored lead', () => {
  const row = {
    ...leadKey('l1'),
    id: 'l1',
    campaignId: 'c1',
    email: 'a@client.com',
    status: 'NEW',
    firstName: null,
    customFields: { plan: 'pro', seats: 3 },
  };

  it('reads names stored as null, and keeps its key when asked', () => {
    const l = lead.fromItem(row);
    expect(l.firstName).toBeNull();
    expect(l.customFields).toEqual({ plan: 'pro', seats: 3 });
    expect(lead.keyedFromItem(row)).toMatchObject({ pk: row.pk, sk: row.sk, id: 'l1' });
  });

  it('writes its whole row with its list indexes', () => {
    expect(lead.toItem(lead.fromItem(row), 'SEQ')).toMatchObject({
      ...leadKey('l1'),
      gsi1pk: 'CAMPAIGN#c1#LEADS',
      gsi1sk: 'SEQ',
      gsi2pk: 'LEADEMAIL#a@client.com',
      gsi3pk: 'LEADS',
    });
  });

  it('reads an import lock, which lapses only once it has a lease that ended', () => {
    expect(lead.lapsed(lead.importLockFromItem({ pk: 'x', sk: 'y', importId: 'i1', leaseUntil: 10 }), 11)).toBe(true);
    expect(lead.lapsed(lead.importLockFromItem({ pk: 'x', sk: 'y', importId: 'i1', leaseUntil: 10 }), 10)).toBe(false);
    expect(lead.lapsed(lead.importLockFromItem({ pk: 'x', sk: 'y', importId: 'i1' }), 11)).toBe(false);
  });
});
