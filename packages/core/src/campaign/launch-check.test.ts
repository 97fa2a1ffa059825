import { describe, expect, it } from 'vitest';
import { created, unitDeps } from '../testing/unit-deps.ts';
import * as leads from '../lead/index.ts';
import type { Key, Query } from '../ports/store.ts';
import * as campaigns from './index.ts';

describe('the launch check of a campaign whose leads brought many field names', () => {
  it('reads the presence counts of the fields its copy names, and no other', async () => {
    const deps = unitDeps();
    const c = await created(campaigns.create, deps, {
      name: 'C',
      aiPromptTemplate: 'About {{company}}',
      subject: 'Hi {{firstName}}',
      template: 'In {{customFields.city}}?',
    });
    // The public webhook takes any field name: 40 leads, 40 names never used by the copy.
    for (let i = 0; i < 40; i++) {
      await leads.acceptWebhook(deps, {
        campaignId: c.id,
        email: `l${i}@names.example`,
        firstName: i % 2 ? 'A' : undefined,
        customFields: { [`junk${i}`]: 'x', ...(i < 10 ? { city: 'Oslo' } : {}) },
      });
    }
    const read: string[] = [];
    const batchGet = deps.store.batchGet.bind(deps.store);
    const query = deps.store.query.bind(deps.store);
    deps.store.batchGet = async (keys: Key[]) => {
      read.push(...keys.filter((k) => k.sk.startsWith('FIELD#')).map((k) => k.sk));
      return batchGet(keys);
    };
    deps.store.query = async (q: Query) => {
      if (q.skBeginsWith === 'FIELD#') read.push('query FIELD#');
      return query(q);
    };
    const check = await campaigns.launchCheck(deps, c.id);
    expect(read.sort()).toEqual(['FIELD#city', 'FIELD#company', 'FIELD#firstName']);
    const warnings = check.warnings as { code: string; field?: string }[];
    const blank = warnings
      .filter((w) => w.code === 'FIELD_BLANK')
      .map((w) => w.field)
      .sort();
    expect(blank).toEqual(['customFields.city', 'firstName']);
  });
});
