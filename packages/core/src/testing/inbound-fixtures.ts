/**
 * Fixtures of the inbound unit tests: leads mailed through the real send path (in memory), and inbound
 * messages as the mail reader hands them over.
 */
import { expect } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';
import { created, type UnitDeps } from './unit-deps.ts';

/** A campaign of one mailbox (rep@sender.com) with a follow-up, launched, and its first email sent to each address. */
export async function sentTo(deps: UnitDeps, emails: string[], campaign: Record<string, unknown> = {}) {
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
    subject: 'Hi {{firstName}}',
    template: 'Hello.',
    mailboxIds: [String(box.id)],
    steps: [{ waitDays: 3, body: 'Bump.' }],
    ...campaign,
  });
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

/** A message from the mailbox's INBOX; a plain reply unless told otherwise. */
export const message = (over: Partial<InboundMessage>): InboundMessage => ({
  uid: 1,
  receivedAt: Date.UTC(2026, 2, 2, 12),
  messageId: `m${Math.random()}@client.com`,
  inReplyTo: [],
  references: [],
  to: ['rep@sender.com'],
  subject: 'Re: Hi',
  headers: {},
  text: 'Yes please.',
  ...over,
});
