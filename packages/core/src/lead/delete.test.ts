import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import { ConflictError } from '../errors.ts';
import { recipientOfToken, unsubscribe, unsubscribeToken } from '../guardrails/unsubscribe.ts';
import * as suppression from '../suppression/index.ts';
import { created, unitDeps } from '../testing/unit-deps.ts';
import * as leads from './index.ts';
import * as domains from '../domain/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { getJob } from '../sending/jobs.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';

describe('a hard-deleted lead', () => {
  it('can still unsubscribe from a link it was sent: the address is suppressed by the hash that stays, and cannot come back', async () => {
    const deps = unitDeps();
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    const lead = await created(leads.create, deps, { campaignId: c.id, email: 'gone@client.com' });
    const token = await unsubscribeToken(deps, lead.id);
    await leads.remove(deps, lead.id);
    // Nothing personal is left: only the salted hash the suppression list uses.
    expect(JSON.stringify(await deps.store.query({ pk: `LEAD#${lead.id}` }))).not.toContain('gone@client.com');
    expect(await recipientOfToken(deps, token)).toBeDefined();
    expect(await unsubscribe(deps, token)).toEqual({ ok: true, email: '' });
    expect(await suppression.isSuppressed(deps, 'gone@client.com')).toBe(true);
    await expect(leads.create(deps, { campaignId: c.id, email: 'gone@client.com' })).rejects.toBeInstanceOf(ConflictError);
  });

  it('ends its queued emails, and its jobs and their rendered subjects go with it', async () => {
    const deps = unitDeps();
    const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
    const box = await created(mailboxes.create, deps, { email: 'rep@sender.com', domainId: domain.id, smtpHost: 'smtp.mail.test', authPassword: 'pw' });
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x', subject: 'For {{firstName}} at {{company}}', template: 'Hi.', mailboxIds: [box.id], steps: [{ waitDays: 2, body: 'Bump.' }] });
    const lead = await created(leads.create, deps, { campaignId: c.id, email: 'sent@client.com', firstName: 'Sam', company: 'Secretco' });
    await campaigns.launch(deps, c.id);
    await deps.store.update(jobKey(jobId(lead.id, 0)), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    expect(await sendJob(deps, jobId(lead.id, 0))).toBe('sent');
    expect(JSON.stringify(await getJob(deps, jobId(lead.id, 0)))).toContain('Secretco');
    await leads.remove(deps, lead.id);
    expect(await getJob(deps, jobId(lead.id, 0))).toBeUndefined();
    expect(await getJob(deps, jobId(lead.id, 1))).toBeUndefined();
    // A queued message of the cancelled step finds nothing to send.
    expect(await sendJob(deps, jobId(lead.id, 1))).not.toBe('sent');
  });

  it('without an unsubscribe, may be added again (a delete is not a suppression)', async () => {
    const deps = unitDeps();
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    const lead = await created(leads.create, deps, { campaignId: c.id, email: 'back@client.com' });
    await leads.remove(deps, lead.id);
    expect(await leads.create(deps, { campaignId: c.id, email: 'back@client.com' })).toMatchObject({ email: 'back@client.com' });
  });
});
