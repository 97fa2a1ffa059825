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

/** A launched two-step campaign whose subject names the lead, and this lead's first email queued to go now. */
async function queuedFirstEmail(person: { email: string; firstName: string; company: string }) {
  const deps = unitDeps();
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
  const box = await created(mailboxes.create, deps, {
    email: 'rep@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
  });
  const c = await created(campaigns.create, deps, {
    name: 'C',
    aiPromptTemplate: 'x',
    subject: 'For {{firstName}} at {{company}}',
    template: 'Hi.',
    mailboxIds: [box.id],
    steps: [{ waitDays: 2, body: 'Bump.' }],
  });
  const lead = await created(leads.create, deps, { campaignId: c.id, ...person });
  await campaigns.launch(deps, c.id);
  await deps.store.update(jobKey(jobId(lead.id, 0)), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
  return { deps, c, lead };
}

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
    const { deps, lead } = await queuedFirstEmail({ email: 'sent@client.com', firstName: 'Sam', company: 'Secretco' });
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

describe('erase', () => {
  it('racing an email on its way: the send is recorded and counted, and the row does not get the thread or the names back', async () => {
    const { deps, c, lead } = await queuedFirstEmail({ email: 'race@client.com', firstName: 'Rae', company: 'Racecorp' });
    // The erase lands while the SMTP server is answering.
    const send = deps.mailer.send.bind(deps.mailer);
    deps.mailer.send = async (transport, email) => {
      await leads.erase(deps, { email: 'race@client.com' });
      return send(transport, email);
    };
    expect(await sendJob(deps, jobId(lead.id, 0))).toBe('sent');
    const row = await deps.store.get({ pk: `LEAD#${lead.id}`, sk: 'LEAD' });
    expect(row).toMatchObject({ erased: true });
    expect(JSON.stringify(row)).not.toMatch(/Rae|Racecorp|race@client/);
    expect(row?.thread).toBeUndefined();
    const job = await getJob(deps, jobId(lead.id, 0));
    expect(job).toMatchObject({ state: 'SENT' });
    expect(JSON.stringify(job)).not.toMatch(/Rae|Racecorp/);
    expect(await getJob(deps, jobId(lead.id, 1))).toBeUndefined();
    expect((await campaigns.get(deps, c.id)).sentCount).toBe(1);
  });

  it('stopped halfway and run again, finishes the row and counts its fields down once', async () => {
    const deps = unitDeps();
    const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x' });
    await created(leads.create, deps, { campaignId: c.id, email: 'half@client.com', firstName: 'Hal', customFields: { city: 'Oslo' } });
    await created(leads.create, deps, { campaignId: c.id, email: 'stay@client.com', firstName: 'Stay' });
    const count = async (f: string) => Number((await deps.store.get({ pk: `CAMPAIGN#${c.id}`, sk: `FIELD#${f}` }))?.count ?? 0);
    expect([await count('firstName'), await count('city')]).toEqual([2, 1]);
    // The process dies at the first write of a field count (the row's anonymizing write is the other half of the step).
    let crashes = 1;
    const crashAt = (keys: { pk: string; sk: string }[]) => {
      if (crashes > 0 && keys.some((k) => k.sk.startsWith('FIELD#'))) {
        crashes--;
        throw new Error('killed');
      }
    };
    const transact = deps.store.transact.bind(deps.store);
    const update = deps.store.update.bind(deps.store);
    deps.store.transact = async (ops) => {
      crashAt(ops.flatMap((o) => ('update' in o ? [o.update] : [])));
      return transact(ops);
    };
    deps.store.update = async (key, change) => {
      crashAt([key]);
      return update(key, change);
    };
    await expect(leads.erase(deps, { email: 'half@client.com' })).rejects.toThrow('killed');
    expect(await leads.erase(deps, { email: 'half@client.com' })).toEqual({ erased: 1 });
    expect(await leads.erase(deps, { email: 'half@client.com' })).toEqual({ erased: 0 });
    expect([await count('firstName'), await count('city')]).toEqual([1, 0]);
  });
});
