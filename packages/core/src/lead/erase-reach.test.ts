/**
 * Erase and delete reach everything the engine stored of a person: a
 * bounce's diagnostic (which servers write with the address in it), the
 * webhook events of a lead deleted before the erase came, and the rest of a
 * deleted lead's items. Unit tier.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import * as webhooks from '../webhooks/index.ts';
import { deliveryKey } from '../webhooks/keys.ts';
import { applyMessages } from '../inbound/apply.ts';
import { inboundOfLead } from '../inbound/keys.ts';
import { listReplies } from '../inbound/index.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { message, sentTo as mailedLeads } from '../testing/inbound-fixtures.ts';
import * as leads from './index.ts';
import { leadKey } from './keys.ts';

/** Leads mailed through the real send path, and their mailbox as the reader hands it over. */
async function sentTo(deps: UnitDeps, emails: string[]) {
  const { box, ...sent } = await mailedLeads(deps, emails);
  return { mailbox: await mailboxes.get(deps, String(box.id)), ...sent };
}

/** A DSN whose Diagnostic-Code quotes the recipient, as most servers write it. */
const dsn = (rcpt: string, originalId: string, status = '5.1.1', diagnostic = `550 ${status} <${rcpt}>: Recipient address rejected`) =>
  message({
    from: 'mailer-daemon@mx.sender.com',
    headers: { 'auto-submitted': 'auto-replied' },
    report: {
      type: 'delivery-status',
      fields: `Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; ${rcpt}\nAction: failed\nStatus: ${status}\nDiagnostic-Code: smtp; ${diagnostic}\n`,
      original: { messageId: originalId, to: [rcpt] },
    },
  });

describe('a bounce diagnostic', () => {
  it('read from a report is stored without the address, hard or soft', async () => {
    const deps = unitDeps();
    const { mailbox, ids, messageIds } = await sentTo(deps, ['ada@x.com', 'full@x.com']);
    await applyMessages(deps, mailbox, [
      dsn('ada@x.com', messageIds['ada@x.com']!),
      dsn('full@x.com', messageIds['full@x.com']!, '5.2.2', '552 5.2.2 <full@x.com>: mailbox full'),
    ]);
    const hard = await leads.get(deps, ids['ada@x.com']!);
    expect(hard.status).toBe('BOUNCED');
    expect(hard.bounce?.diagnostic).toContain('Recipient address rejected');
    expect(hard.bounce?.diagnostic).not.toContain('ada@x.com');
    const soft = await leads.get(deps, ids['full@x.com']!);
    expect(soft.bounce).toMatchObject({ hard: false });
    expect(soft.bounce?.diagnostic).not.toContain('full@x.com');
    // The report's own record keeps the diagnostic in its snippet: without the address too.
    const records = (await deps.store.query(inboundOfLead(ids['ada@x.com']!))).items;
    expect(records.map((r) => r.snippet)).toEqual([expect.stringContaining('Recipient address rejected')]);
    expect(JSON.stringify(records)).not.toContain('<ada@x.com>');
  });

  it('is emptied by an erase, whatever a row stored before kept in it', async () => {
    const deps = unitDeps();
    const { ids } = await sentTo(deps, ['ada@x.com']);
    // A row from before diagnostics lost their addresses.
    await deps.store.update(leadKey(ids['ada@x.com']!), {
      set: {
        bounce: {
          status: '5.1.1',
          reason: 'user-unknown',
          hard: false,
          diagnostic: '550 5.1.1 <ada@x.com>: Recipient address rejected',
          via: 'report',
          confirmed: true,
          at: '2026-03-02T12:00:00.000Z',
        },
      },
    });
    expect((await leads.erase(deps, { email: 'ada@x.com' })).erased).toBe(1);
    const listed = JSON.stringify(await leads.list(deps, {}));
    expect(listed).not.toContain('ada@x.com');
    expect(listed).not.toContain('Recipient address rejected');
    expect((await leads.get(deps, ids['ada@x.com']!)).bounce).toMatchObject({ status: '5.1.1', hard: false });
  });
});

describe('a deleted lead', () => {
  it('leaves no webhook event naming it: owed ones are given up, so an erase afterwards has nothing left to find', async () => {
    const deps = unitDeps();
    const hook = await webhooks.create(deps, { url: 'https://hooks.example.com/in', events: ['*'] });
    const { mailbox, ids, messageIds } = await sentTo(deps, ['ada@x.com', 'bob@x.com', 'cy@x.com']);
    await applyMessages(deps, mailbox, [
      dsn('ada@x.com', messageIds['ada@x.com']!),
      message({ from: 'bob@x.com', inReplyTo: [messageIds['bob@x.com']!], text: 'Call me on 555 0100.' }),
    ]);
    await leads.suppress(deps, ids['cy@x.com']!);
    for (const email of ['ada@x.com', 'bob@x.com']) await leads.remove(deps, ids[email]!);
    await leads.erase(deps, { email: 'ada@x.com' });
    await leads.erase(deps, { email: 'bob@x.com' });

    const items = await Promise.all(
      (await webhooks.deliveries(deps, hook.id)).deliveries.map(async (d) => (await deps.store.get(deliveryKey(hook.id, d.eventId)))!),
    );
    const of = (email: string) => items.filter((i) => JSON.parse(String(i.body)).data.leadId === ids[email]);
    expect(
      of('ada@x.com')
        .map((i) => i.type)
        .sort(),
    ).toEqual(['email.bounced', 'email.sent']);
    expect(
      of('bob@x.com')
        .map((i) => i.type)
        .sort(),
    ).toEqual(['email.sent', 'reply.received']);
    for (const item of [...of('ada@x.com'), ...of('bob@x.com')]) {
      expect(String(item.body)).not.toMatch(/ada@x\.com|bob@x\.com|555 0100/);
      expect(item).toMatchObject({ delivered: false, givenUp: true, lastError: 'the lead was deleted before the event was delivered' });
      expect(item.gsi3pk).toBeUndefined();
    }
    // A lead that was not deleted keeps its events owed.
    expect(of('cy@x.com').every((i) => !i.givenUp)).toBe(true);
  });
});

describe('deleting a lead', () => {
  it("while its email is being sent: the send is counted, and its job goes once recorded, like the lead's other jobs", async () => {
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
      subject: 'For {{firstName}}',
      template: 'Hi.',
      mailboxIds: [String(box.id)],
      steps: [{ waitDays: 2, body: 'Bump.' }],
    });
    const lead = await created(leads.create, deps, { campaignId: c.id, email: 'ada@x.com', firstName: 'Ada' });
    await campaigns.launch(deps, String(c.id));
    await deps.store.update(jobKey(jobId(String(lead.id), 0)), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    // The delete lands while the SMTP server is answering.
    const send = deps.mailer.send.bind(deps.mailer);
    deps.mailer.send = async (transport, email) => {
      await leads.remove(deps, String(lead.id));
      return send(transport, email);
    };
    expect(await sendJob(deps, jobId(String(lead.id), 0))).toBe('sent');
    expect((await campaigns.get(deps, String(c.id))).sentCount).toBe(1);
    for (const step of [0, 1]) expect(await deps.store.get(jobKey(jobId(String(lead.id), step)))).toBeUndefined();
    expect(await deps.store.get(leadKey(String(lead.id)))).toBeUndefined();
  });

  it('removes its replies and their words; the campaign keeps its counts', async () => {
    const deps = unitDeps();
    const { mailbox, campaignId, ids, messageIds } = await sentTo(deps, ['ada@x.com', 'bob@x.com']);
    await applyMessages(deps, mailbox, [
      message({ from: 'ada@x.com', inReplyTo: [messageIds['ada@x.com']!], text: 'Call me on 555 0100.' }),
      message({ from: 'ada@x.com', inReplyTo: [messageIds['ada@x.com']!], text: 'Still there?' }),
      message({ from: 'bob@x.com', inReplyTo: [messageIds['bob@x.com']!], text: 'Yes.' }),
    ]);
    expect((await listReplies(deps, {})).replies).toHaveLength(3);
    await leads.remove(deps, ids['ada@x.com']!);
    expect((await listReplies(deps, {})).replies.map((r) => r.leadId)).toEqual([ids['bob@x.com']]);
    expect((await deps.store.query(inboundOfLead(ids['ada@x.com']!))).items).toEqual([]);
    for (let step = 0; step < 2; step++) expect(await deps.store.get(jobKey(jobId(ids['ada@x.com']!, step)))).toBeUndefined();
    expect(await campaigns.get(deps, campaignId)).toMatchObject({ sentCount: 2, repliesCount: 2 });
  });
});
