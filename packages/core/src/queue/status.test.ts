/**
 * GET /v1/queue/status on the unit tier: the counts come from the kept state
 * counters and the jobs from the due and claimed indexes, read typed.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { created, unitDeps } from '../testing/unit-deps.ts';
import { status } from './index.ts';

describe('the queue status', () => {
  it('counts a launched campaign’s planned first emails as delayed and lists them', async () => {
    const deps = unitDeps();
    const domain = await created(domains.create, deps, { domainName: 'queue.com', mailingAddress: '1 Main St\nSpringfield' });
    const box = await created(mailboxes.create, deps, {
      email: 'rep@queue.com',
      domainId: domain.id,
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
      senderName: 'Rep',
    });
    const c = await created(campaigns.create, deps, {
      name: 'C',
      aiPromptTemplate: 'x',
      subject: 'Hi',
      template: 'Hello there.',
      mailboxIds: [box.id],
    });
    for (const email of ['a@client.com', 'b@client.com']) await created(leads.create, deps, { campaignId: c.id, email });
    await campaigns.launch(deps, c.id);

    const s = await status(deps);
    expect(s.counts.waiting + s.counts.delayed).toBe(2);
    expect(s.counts).toMatchObject({ active: 0, completed: 0, failed: 0 });
    expect(s.isPaused).toBe(false);
    expect(s.jobs).toHaveLength(2);
    for (const job of s.jobs) {
      expect(job).toMatchObject({ kind: expect.any(String), campaignId: c.id, step: 0, mailboxId: box.id, attempts: 0, lastError: null });
      expect(Date.parse(job.dueAt)).not.toBeNaN();
    }
  });
});
