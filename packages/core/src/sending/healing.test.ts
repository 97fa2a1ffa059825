/**
 * No lead waits without a job that will move it: leads put by hand in the
 * states a crash or an older version could leave them in are found by the
 * dispatcher's sweep and moved on as the sequence says.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { leadKey } from '../lead/keys.ts';
import { fromItem as leadFromItem } from '../lead/entity.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { dispatch } from './dispatcher.ts';
import { healWaitingLeads, HEAL_EVERY_MS, HEAL_PAGE } from './healing.ts';
import { getJob, move } from './jobs.ts';
import { jobId, jobKey } from './keys.ts';
import { sendJob } from './sender.ts';

const DAY = 86_400_000;

/** A launched two-step campaign on one mailbox, its first emails sent, and a while later (nothing is fresh any more). */
async function sentFirstEmails(deps: UnitDeps, emails: string[]) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St\nSpringfield' });
  const box = await created(mailboxes.create, deps, {
    email: 'rep@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
    senderName: 'Rep',
    dailyCap: 100,
  });
  const c = await created(campaigns.create, deps, {
    name: 'C',
    aiPromptTemplate: 'x',
    subject: 'Hello',
    template: 'Hi, a note.',
    mailboxIds: [box.id],
    steps: [{ waitDays: 3, body: 'Following up.' }],
  });
  const ids: string[] = [];
  for (const email of emails) ids.push((await created(leads.create, deps, { campaignId: c.id, email })).id);
  await campaigns.launch(deps, c.id);
  for (const id of ids) {
    deps.clock.advance(20 * 60_000);
    await deps.store.update(jobKey(jobId(id, 0)), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    expect(await sendJob(deps, jobId(id, 0))).toBe('sent');
  }
  deps.wallClock.advance(HEAL_EVERY_MS);
  return { campaignId: c.id, ids };
}

const leadOf = async (deps: UnitDeps, id: string) => leadFromItem((await deps.store.get(leadKey(id)))!);

describe('the sweep for leads left waiting', () => {
  it('plans the follow-up a lost write never planned, completes a finished sequence, and leaves moving leads alone', async () => {
    const deps = unitDeps();
    const { ids } = await sentFirstEmails(deps, ['a@client.com', 'b@client.com', 'c@client.com']);
    const [lost, finished, fine] = ids as [string, string, string];
    const sentAt = Date.parse((await leadOf(deps, lost)).lastSentAt!);
    // a: its follow-up job is gone (the write that planned it never happened).
    await deps.store.delete(jobKey(jobId(lost, 1)));
    // b: its follow-up went, but the lead was left CONTACTED with nothing planned.
    await move(deps, (await getJob(deps, jobId(finished, 1)))!, 'SENT');
    await deps.store.update(leadKey(finished), { set: { stepsSent: 2 } });

    const before = await leadOf(deps, fine);
    expect(await healWaitingLeads(deps, true)).toBe(2);

    const planned = (await getJob(deps, jobId(lost, 1)))!;
    expect(planned).toMatchObject({ state: 'SCHEDULED', step: 1, mailboxId: (await leadOf(deps, lost)).mailboxId });
    // waitDays after the first email, as its record would have planned it.
    expect(Number(planned.dueAt)).toBe(sentAt + 3 * DAY);
    expect((await leadOf(deps, finished)).status).toBe('COMPLETED');
    expect(await leadOf(deps, fine)).toEqual(before);
    expect(deps.metrics.counts.LeadsHealed).toBe(2);
    expect(deps.logs.filter((l) => String(l.msg).startsWith('a lead was waiting'))).toHaveLength(2);
    // Healed once: the next sweep finds nothing.
    expect(await healWaitingLeads(deps, true)).toBe(0);
  });

  it('gives a NEW lead with no job its first email, and ends the sequence of one whose first email failed for good', async () => {
    const deps = unitDeps();
    const { ids } = await sentFirstEmails(deps, ['a@client.com', 'b@client.com']);
    // Put back as a lead that never got its first job (a launch that died mid-planning) ...
    const [unplanned, failed] = ids as [string, string];
    await deps.store.delete(jobKey(jobId(unplanned, 0)));
    await deps.store.delete(jobKey(jobId(unplanned, 1)));
    await deps.store.update(leadKey(unplanned), { set: { status: 'NEW', stepsSent: 0 }, remove: ['mailboxId', 'thread', 'lastSentAt'] });
    // ... and one whose first email failed for good (tried 5 times) and never went.
    await deps.store.delete(jobKey(jobId(failed, 1)));
    await move(deps, (await getJob(deps, jobId(failed, 0)))!, 'FAILED', { set: { lastError: 'temporary 451' } });
    await deps.store.update(leadKey(failed), { set: { status: 'NEW', stepsSent: 0 }, remove: ['mailboxId', 'thread', 'lastSentAt'] });

    // The dispatcher sweeps on its first tick.
    await dispatch(deps);
    expect(await getJob(deps, jobId(unplanned, 0))).toMatchObject({ step: 0, mailboxId: expect.any(String) });
    expect(['SCHEDULED', 'QUEUED']).toContain((await getJob(deps, jobId(unplanned, 0)))!.state);
    expect((await leadOf(deps, failed)).status).toBe('COMPLETED');
    expect(await getJob(deps, jobId(failed, 1))).toBeUndefined();
    expect(deps.metrics.counts.LeadsHealed).toBe(2);
    // Not again until a few minutes of wall time have passed.
    await deps.store.delete(jobKey(jobId(unplanned, 0)));
    await dispatch(deps);
    expect(await getJob(deps, jobId(unplanned, 0))).toBeUndefined();
    deps.wallClock.advance(HEAL_EVERY_MS);
    await dispatch(deps);
    expect(await getJob(deps, jobId(unplanned, 0))).toBeDefined();
  });

  it('takes as sent a first email an older version ended FAILED with an unknown outcome, and the lead goes on in its thread', async () => {
    const deps = unitDeps();
    const { ids } = await sentFirstEmails(deps, ['a@client.com']);
    const [id] = ids as [string];
    const sent = (await getJob(deps, jobId(id, 0)))!;
    // As the old sender left it: FAILED, never resent, its Message-ID kept; the lead NEW, unpinned, nothing planned.
    await deps.store.delete(jobKey(jobId(id, 1)));
    await move(deps, sent, 'FAILED', {
      set: { lastError: 'outcome unknown: the sender stopped during the send, so it was not sent again' },
    });
    await deps.store.update(leadKey(id), { set: { status: 'NEW', stepsSent: 0 }, remove: ['mailboxId', 'thread', 'lastSentAt'] });

    expect(await healWaitingLeads(deps, true)).toBe(1);
    expect(await getJob(deps, jobId(id, 0))).toMatchObject({ state: 'SENT', unconfirmed: true, messageId: sent.messageId });
    const lead = await leadOf(deps, id);
    expect(lead).toMatchObject({ status: 'CONTACTED', stepsSent: 1, mailboxId: sent.mailboxId });
    expect(lead.thread?.messageIds).toEqual([sent.messageId]);
    expect(await getJob(deps, jobId(id, 1))).toMatchObject({ state: 'SCHEDULED', step: 1 });
    expect(deps.metrics.counts.UnconfirmedSends).toBe(1);
    // Healed once: the next sweep finds nothing to do (a job that failed for a known reason stays passed over, test above).
    expect(await healWaitingLeads(deps, true)).toBe(0);
  });

  it('looks at a bounded page of a campaign per sweep and goes round its leads in turn', async () => {
    const deps = unitDeps();
    const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St\nSpringfield' });
    const box = await created(mailboxes.create, deps, {
      email: 'rep@sender.com',
      domainId: domain.id,
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
    });
    const c = await created(campaigns.create, deps, {
      name: 'C',
      aiPromptTemplate: 'x',
      subject: 'Hello',
      template: 'Hi.',
      mailboxIds: [box.id],
    });
    const count = HEAL_PAGE + 5;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await created(leads.create, deps, { campaignId: c.id, email: `l${i}@client.com` })).id);
    await campaigns.launch(deps, c.id);
    deps.wallClock.advance(HEAL_EVERY_MS);
    for (const id of ids) await deps.store.delete(jobKey(jobId(id, 0)));
    expect(await healWaitingLeads(deps, true)).toBe(HEAL_PAGE);
    expect(await healWaitingLeads(deps, true)).toBe(5);
    for (const id of ids) expect(await getJob(deps, jobId(id, 0))).toBeDefined();
  });
});
