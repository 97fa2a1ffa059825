/**
 * What inbound messages do to leads, on the unit tier: each kind once, however
 * often the same message is read (an overlapping reader, a UIDVALIDITY reset).
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { leadKey } from '../lead/keys.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { getJob } from '../sending/jobs.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';
import * as suppression from '../suppression/index.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { applyMessage, sentRefsOf } from './apply.ts';
import { listReplies } from './index.ts';

async function sentTo(deps: UnitDeps, emails: string[]) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
  const box = await created(mailboxes.create, deps, { email: 'rep@sender.com', domainId: domain.id, smtpHost: 'smtp.mail.test', authPassword: 'pw' });
  const c = await created(campaigns.create, deps, { name: 'C', aiPromptTemplate: 'x', subject: 'Hi {{firstName}}', template: 'Hello.', mailboxIds: [String(box.id)], steps: [{ waitDays: 3, body: 'Bump.' }] });
  const ids: Record<string, string> = {};
  for (const email of emails) ids[email] = String((await created(leads.create, deps, { campaignId: c.id, email, firstName: 'F' })).id);
  await campaigns.launch(deps, String(c.id));
  const messageIds: Record<string, string> = {};
  for (const email of emails) {
    const id = jobId(ids[email]!, 0);
    await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    expect(await sendJob(deps, id)).toBe('sent');
    messageIds[email] = deps.mailer.sent.at(-1)!.email.messageId;
    deps.clock.advance(11 * 60_000);
  }
  return { box, campaignId: String(c.id), ids, messageIds };
}

const message = (over: Partial<InboundMessage>): InboundMessage => ({
  uid: 1, receivedAt: Date.UTC(2026, 2, 2, 12), messageId: `m${Math.random()}@client.com`, inReplyTo: [], references: [], to: ['rep@sender.com'], subject: 'Re: Hi', headers: {}, text: 'Yes please.', ...over,
});

async function applyTwice(deps: UnitDeps, box: { id: unknown }, m: InboundMessage) {
  const mailbox = await mailboxes.get(deps, String(box.id));
  const first = await applyMessage(deps, mailbox, m, await sentRefsOf(deps, [m]));
  const again = await applyMessage(deps, mailbox, m, await sentRefsOf(deps, [m]));
  return [first, again];
}

describe('applying inbound messages', () => {
  it('a threaded reply: REPLIED, follow-up cancelled, counted and listed once', async () => {
    const deps = unitDeps();
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['ann@client.com']);
    const m = message({ from: 'ann@client.com', inReplyTo: [messageIds['ann@client.com']!] });
    expect(await applyTwice(deps, box, m)).toEqual(['REPLY', 'REPLY']);
    expect((await deps.store.get(leadKey(ids['ann@client.com']!)))!.status).toBe('REPLIED');
    expect((await getJob(deps, jobId(ids['ann@client.com']!, 1)))!.state).toBe('CANCELLED');
    expect((await campaigns.get(deps, campaignId)).repliesCount).toBe(1);
    expect((await listReplies(deps, {})).replies).toHaveLength(1);
  });

  it('a permanent failure in a DSN: BOUNCED, suppressed, one bounce for the breaker however often it is read; a delay changes nothing', async () => {
    const deps = unitDeps();
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['gone@client.com', 'slow@client.com']);
    const dsn = (rcpt: string, action: string, status: string) =>
      message({ from: 'mailer-daemon@mx.sender.com', headers: { 'auto-submitted': 'auto-replied' }, report: { type: 'delivery-status', fields: `Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; ${rcpt}\nAction: ${action}\nStatus: ${status}\n`, original: { messageId: messageIds[rcpt], to: [rcpt] } } });
    expect(await applyTwice(deps, box, dsn('gone@client.com', 'failed', '5.1.1'))).toEqual(['BOUNCE', 'BOUNCE']);
    expect(await applyTwice(deps, box, dsn('slow@client.com', 'delayed', '4.4.1'))).toEqual(['IGNORED', 'IGNORED']);
    expect((await deps.store.get(leadKey(ids['gone@client.com']!)))!.status).toBe('BOUNCED');
    expect((await deps.store.get(leadKey(ids['slow@client.com']!)))!.status).toBe('CONTACTED');
    expect(await suppression.isSuppressed(deps, 'gone@client.com')).toBe(true);
    expect(await suppression.isSuppressed(deps, 'slow@client.com')).toBe(false);
    const days = await deps.store.query({ pk: `BREAKER#${campaignId}#${String(box.id)}` });
    expect(days.items.reduce((n, d) => n + Number(d.bounces ?? 0), 0)).toBe(1);
  });

  it('a complaint suppresses the address; an auto-reply is recorded and stops nothing; mail from strangers changes nothing', async () => {
    const deps = unitDeps();
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['angry@client.com', 'away@client.com']);
    const arf = message({ from: 'fbl@provider.example', report: { type: 'feedback-report', fields: 'Feedback-Type: abuse\nOriginal-Rcpt-To: angry@client.com\n', original: { to: ['angry@client.com'] } } });
    expect(await applyTwice(deps, box, arf)).toEqual(['COMPLAINT', 'COMPLAINT']);
    expect((await deps.store.get(leadKey(ids['angry@client.com']!)))!.status).toBe('SUPPRESSED');
    const ooo = message({ from: 'away@client.com', inReplyTo: [messageIds['away@client.com']!], headers: { 'auto-submitted': 'auto-replied' }, text: 'Out of the office.' });
    expect(await applyTwice(deps, box, ooo)).toEqual(['AUTO_REPLY', 'AUTO_REPLY']);
    expect((await deps.store.get(leadKey(ids['away@client.com']!)))!.status).toBe('CONTACTED');
    expect(await applyTwice(deps, box, message({ from: 'stranger@elsewhere.com' }))).toEqual(['IGNORED', 'IGNORED']);
    expect((await campaigns.get(deps, campaignId)).repliesCount).toBe(0);
  });
});
