/**
 * A complaint that names no recipient is tied to its lead by the returned
 * email's Message-ID alone, and every email.sent event hands that
 * Message-ID to the webhook receivers: such a complaint may be forged by any
 * of them. It still suppresses the lead (feedback loops such as Microsoft's
 * JMRP hide the recipient, and a complainer must never be mailed again), but
 * it never moves the bounce breaker, so a forgery can at worst stop leads,
 * never pause a campaign. Unit tier.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';
import * as suppression from '../suppression/index.ts';
import { created, unitDeps } from '../testing/unit-deps.ts';
import { applyMessages } from './apply.ts';

describe('a complaint matched by its Message-ID alone', () => {
  it('suppresses that lead, and never counts for the breaker or pauses the campaign', async () => {
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
      subject: 'Hi',
      template: 'Hello.',
      mailboxIds: [box.id],
      steps: [{ waitDays: 3, body: 'Bump.' }],
    });
    const emails = Array.from({ length: 21 }, (_, i) => `lead${i}@client.com`);
    const ids: string[] = [];
    for (const email of emails) ids.push((await created(leads.create, deps, { campaignId: c.id, email })).id);
    await campaigns.launch(deps, c.id);
    const messageIds: string[] = [];
    for (const id of ids) {
      await deps.store.update(jobKey(jobId(id, 0)), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
      expect(await sendJob(deps, jobId(id, 0))).toBe('sent');
      messageIds.push(deps.mailer.sent.at(-1)!.email.messageId);
      deps.clock.advance(11 * 60_000);
    }
    // Five Message-IDs taken from email.sent events, each in a report naming no recipient (as JMRP's redacted ones do).
    const forged = messageIds.slice(0, 5).map((messageId, i): InboundMessage => ({
      uid: i + 1,
      receivedAt: deps.clock.now(),
      messageId: `f${i}@forger.example`,
      inReplyTo: [],
      references: [],
      to: ['rep@sender.com'],
      subject: 'Complaint',
      headers: {},
      text: '',
      from: 'fbl@forger.example',
      report: { type: 'feedback-report', fields: 'Feedback-Type: abuse\n', original: { messageId, to: [] } },
    }));
    expect(await applyMessages(deps, await mailboxes.get(deps, box.id), forged)).toEqual(Array(5).fill('COMPLAINT'));
    for (const email of emails.slice(0, 5)) expect(await suppression.isSuppressed(deps, email)).toBe(true);
    const breaker = (await deps.store.query({ pk: `BREAKER#${c.id}#${box.id}` })).items;
    expect(breaker.reduce((n, d) => n + Number(d.bounces ?? 0), 0)).toBe(0);
    expect(await campaigns.get(deps, c.id)).toMatchObject({ status: 'ACTIVE', pausedForBounceRate: false });
  });
});
