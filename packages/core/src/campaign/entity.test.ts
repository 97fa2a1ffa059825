/**
 * The stored shape of a campaign: a row as older versions wrote it still reads
 * (with the defaults today's readers applied), and a parse keeps what the
 * shape does not name (keys, index attributes, counters), which the API
 * projection and conditional writes read as stored.
 */
import { describe, expect, it } from 'vitest';
import * as campaign from './entity.ts';
import { campaignKey } from './keys.ts';

describe('a stored campaign', () => {
  const row = { ...campaignKey('c1'), id: 'c1', name: 'C', status: 'DRAFT', 'leadsByStatus#NEW': 3 };

  it('reads with its counters and lists at 0 and empty when the row has none', () => {
    const c = campaign.fromItem(row);
    expect(c).toMatchObject({ leadsCount: 0, sentCount: 0, repliesCount: 0, planned: 0, planOffset: 0, mailboxIds: [], steps: [] });
    expect(campaign.statusCount(c, 'NEW')).toBe(3);
    expect(campaign.statusCount(c, 'REPLIED')).toBe(0);
    expect(campaign.bounceRateThresholdOf(c)).toBe(5);
    expect(campaign.bounceRateThresholdOf(campaign.fromItem({ ...row, bounceRateThreshold: 2.5 }))).toBe(2.5);
  });

  it('writes a new campaign without the defaults a reader applies', () => {
    const item = campaign.toItem({ id: 'c2', name: 'New', status: 'DRAFT' });
    expect(item).toMatchObject({ ...campaignKey('c2'), gsi1pk: 'CAMPAIGNS', gsi1sk: 'c2' });
    expect(item).not.toHaveProperty('planned');
  });

  it('reads the per-field lead counts beside it', () => {
    expect(campaign.fieldCountFromItem({ pk: 'CAMPAIGN#c1', sk: 'FIELD#company', count: 4 })).toEqual({ field: 'company', count: 4 });
  });
});
