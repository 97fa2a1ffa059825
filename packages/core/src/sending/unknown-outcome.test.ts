/**
 * An unknown outcome where no Sent folder can say (an SMTP-only mailbox):
 * taken as sent, never resent, and the lead moves on exactly as after a
 * normal send (docs/sending.md, Exactly once). Both ways it happens: the
 * connection broke after the message was handed over, and the sender died
 * after SMTP began (the dispatcher settles the dead claim).
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { leadKey } from '../lead/keys.ts';
import { fromItem as leadFromItem } from '../lead/entity.ts';
import { status } from '../queue/index.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { dispatch } from './dispatcher.ts';
import { getJob, moveOps } from './jobs.ts';
import { jobId, jobKey } from './keys.ts';
import { sendJob } from './sender.ts';
import type { Mailer } from '../ports/mailer.ts';

const DAY = 86_400_000;

/** A launched two-step campaign on one SMTP-only mailbox, with one lead. */
async function launched(deps: UnitDeps) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St\nSpringfield' });
  const box = await created(mailboxes.create, deps, {
    email: 'rep@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
    senderName: 'Rep',
  });
  const c = await created(campaigns.create, deps, {
    name: 'C',
    aiPromptTemplate: 'x',
    subject: 'Hello {{firstName}}',
    template: 'Hi {{firstName}}, a note.',
    mailboxIds: [box.id],
    steps: [{ waitDays: 2, body: 'Following up.' }],
  });
  const lead = await created(leads.create, deps, { campaignId: c.id, email: 'a@client.com', firstName: 'F' });
  await campaigns.launch(deps, c.id);
  return { campaignId: c.id, leadId: lead.id };
}

async function queue(deps: UnitDeps, id: string) {
  await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
}

/** What a sent first email leaves, whether confirmed or taken as sent: the lead moved on, the follow-up planned under its thread. */
async function expectMovedOn(deps: UnitDeps, leadId: string, messageId: string) {
  const lead = leadFromItem((await deps.store.get(leadKey(leadId)))!);
  expect(lead).toMatchObject({ status: 'CONTACTED', stepsSent: 1, thread: { messageIds: [messageId] } });
  const next = (await getJob(deps, jobId(leadId, 1)))!;
  expect(next).toMatchObject({ state: 'SCHEDULED', step: 1 });
  expect(Number(next.dueAt)).toBeGreaterThanOrEqual(deps.clock.now() + 2 * DAY - 60_000);
}

describe('an unknown outcome with no Sent folder to settle it', () => {
  it('a connection broken after the message was handed over: SENT, unconfirmed, counted, and the lead moves on', async () => {
    const deps = unitDeps();
    const { campaignId, leadId } = await launched(deps);
    const id = jobId(leadId, 0);
    deps.mailer.answer({ ok: false, kind: 'unknown', detail: 'connection closed after DATA' });
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('unconfirmed');
    const job = (await getJob(deps, id))!;
    expect(job).toMatchObject({ state: 'SENT', unconfirmed: true, lastError: expect.stringMatching(/outcome unknown/) });
    await expectMovedOn(deps, leadId, String(job.messageId));
    expect(deps.metrics.counts).toEqual({ UnconfirmedSends: 1 });
    expect((await status(deps)).counts).toMatchObject({ completed: 1, unconfirmed: 1, failed: 0, active: 0 });
    expect((await campaigns.get(deps, campaignId)).sentCount).toBe(1);
    // Never resent: a second delivery of its message finds it SENT.
    await expect(sendJob(deps, id)).resolves.toBe('ignored');
    expect(deps.mailer.sent).toHaveLength(1);
  });

  it('a sender that died after SMTP began: the dispatcher takes it as sent and the follow-up threads under it', async () => {
    const deps = unitDeps();
    const { leadId } = await launched(deps);
    const id = jobId(leadId, 0);
    const planned = (await getJob(deps, id))!;
    // The claim and the start of SMTP as a sender leaves them when it is killed before the record.
    const messageId = 'f00dfeed@sender.com';
    await deps.store.transact(
      moveOps(planned, 'CLAIMED', {
        set: {
          claimId: 'dead',
          claimedAt: deps.clock.now(),
          messageId,
          subject: 'Hello F',
          aiGenerated: false,
          smtpStartedAt: deps.wallClock.now(),
          attempts: 1,
        },
        wallNow: deps.wallClock.now(),
      }),
    );
    await dispatch(deps, { requeueAll: true });
    const job = (await getJob(deps, id))!;
    expect(job).toMatchObject({ state: 'SENT', unconfirmed: true, messageId });
    await expectMovedOn(deps, leadId, messageId);
    expect((await status(deps)).counts).toMatchObject({ completed: 1, unconfirmed: 1, failed: 0, active: 0 });

    // The follow-up goes as a reply under the unconfirmed email.
    deps.clock.advance(2 * DAY);
    await queue(deps, jobId(leadId, 1));
    expect(await sendJob(deps, jobId(leadId, 1))).toBe('sent');
    const followUp = deps.mailer.sent.at(-1)!.email;
    expect(followUp).toMatchObject({ inReplyTo: messageId, subject: 'Re: Hello F' });
    expect(deps.mailer.sent).toHaveLength(1);
    expect(leadFromItem((await deps.store.get(leadKey(leadId)))!)).toMatchObject({ status: 'COMPLETED', stepsSent: 2 });
  });
});

describe('the part of a send where a crash loses the email', () => {
  it('is held by one send at a time in a process, from the mark of its start to the server’s answer, whatever the mailbox', async () => {
    const timeline: string[] = [];
    // A mailer whose message takes a moment to go: the hook runs once DATA is accepted, then the transfer.
    const slow: Mailer = {
      async send(_t, email, hooks = {}) {
        await hooks.beforeMessage?.();
        timeline.push(`in ${email.to}`);
        await new Promise((r) => setTimeout(r, 30));
        timeline.push(`out ${email.to}`);
        return { ok: true, response: '250 ok' };
      },
      async close() {},
    };
    const deps = unitDeps({ mailer: slow });
    const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St\nSpringfield' });
    const boxes = [];
    for (const name of ['a', 'b', 'c'])
      boxes.push(
        await created(mailboxes.create, deps, {
          email: `${name}@sender.com`,
          domainId: domain.id,
          smtpHost: 'smtp.mail.test',
          authPassword: 'pw',
        }),
      );
    const c = await created(campaigns.create, deps, {
      name: 'C',
      aiPromptTemplate: 'x',
      subject: 'Hello',
      template: 'Hi, a note.',
      mailboxIds: boxes.map((b) => b.id),
    });
    const ids = [];
    for (const email of ['x@client.com', 'y@client.com', 'z@client.com'])
      ids.push((await created(leads.create, deps, { campaignId: c.id, email })).id);
    await campaigns.launch(deps, c.id);
    for (const id of ids) await queue(deps, jobId(id, 0));

    expect(await Promise.all(ids.map((id) => sendJob(deps, jobId(id, 0))))).toEqual(['sent', 'sent', 'sent']);
    // Never two in at once: each transfer ends before the next one's start is marked.
    expect(timeline).toHaveLength(6);
    for (let i = 0; i < timeline.length; i += 2) {
      expect(timeline[i]).toMatch(/^in /);
      expect(timeline[i + 1]).toBe(timeline[i]!.replace(/^in /, 'out '));
    }
  });
});
