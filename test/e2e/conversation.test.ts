/**
 * Conversations end to end: the engine sends a real first email over SMTP, the lead answers in its thread
 * into a real Dovecot, the poller reads it, and the conversation shows both with their text. A person's
 * answer then leaves from the pinned mailbox through the one send path: the recipient's copy threads under
 * the reply, with the footer and List-Unsubscribe; the same request twice with one Idempotency-Key gives
 * one email; a suppressed address gets 409 and no email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually } from '../helpers/fixtures.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';
import * as inbound from '../fixtures/inbound.ts';

const PASS = 'conv-password';

let dovecot: TestDovecot;
let smtp: TestSmtpServer;
let engine: TestEngine;
const smtpUsers: Record<string, string> = {};

beforeAll(async () => {
  dovecot = await startDovecot({});
  smtp = await startSmtpServer({ users: smtpUsers });
  // A mailbox is read about every second of wall time; the follow-up waits 30 days (4 minutes), past the end of the test.
  engine = await startTestEngine({ realTime: true, timeScale: 10_000 });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
  await dovecot?.stop();
});

/** mailparser keeps the angle brackets of a Message-ID; the API names ids without them. */
const bare = (id: string | undefined) => id?.replace(/^<|>$/g, '');

/** A header as it came over DATA (unfolded), whatever mailparser makes of it. */
const header = (m: ReceivedMessage, name: string) => {
  const head = m.raw.slice(0, m.raw.search(/\r?\n\r?\n/));
  const line = head.split(/\r?\n(?=\S)/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line
    ?.slice(name.length + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
};

describe('a conversation, and answering from the engine', { timeout: 120_000 }, () => {
  it('shows the reply under the first email, sends a threaded answer with every guardrail once per Idempotency-Key, and refuses a suppressed address', async () => {
    const api = engine.api;
    const domain = await domainWithAddress(api, 'convco.com');
    const email = 'sam@convco.com';
    await dovecot.addUser(email, PASS);
    smtpUsers[email] = PASS;
    const box = await api.request('POST', '/v1/mailboxes', {
      email,
      domainId: domain.id,
      authPassword: PASS,
      dailyCap: 1000,
      senderName: 'Sam Sender',
      smtpHost: '127.0.0.1',
      smtpPort: smtp.port,
      imapHost: '127.0.0.1',
      imapPort: dovecot.imapPort,
    });
    expect(box.status, JSON.stringify(box.body)).toBe(201);
    const c = await campaign(api, { mailboxIds: [box.body.id], steps: [{ waitDays: 30, body: 'Just bumping this, {{firstName}}.' }] });
    const ids: Record<string, string> = {};
    for (const address of ['ann@client.com', 'bo@client.com']) {
      ids[address] = (
        await api.request('POST', '/v1/leads', { campaignId: c.id, email: address, firstName: address.split('@')[0] })
      ).body.id;
    }
    expect((await api.request('POST', `/v1/campaigns/${c.id}/launch`)).status).toBe(200);
    const firstOf = (to: string) =>
      eventually(async () => smtp.messages.find((m) => m.envelope.to[0] === to), 20_000, `the first email to ${to}`);
    const first = await firstOf('ann@client.com');
    await firstOf('bo@client.com');

    // Ann answers in the thread; the poller reads it.
    const replyId = `ann-reply-${Date.now()}@client.com`;
    const words = 'Sounds good. What does Tuesday look like for a call?';
    await dovecot.deliver(
      email,
      inbound.reply({
        mailbox: email,
        from: 'ann@client.com',
        subject: `Re: ${first.subject}`,
        body: words,
        date: new Date(),
        inReplyTo: first.messageId,
        references: [first.messageId!],
        original: first.text,
        messageId: replyId,
      }),
    );
    const path = `/v1/leads/${ids['ann@client.com']}/conversation`;
    const both = await eventually(
      async () => {
        const got = await api.request('GET', path);
        return got.body.messages?.length === 2 ? got.body : undefined;
      },
      30_000,
      'the conversation with the first email and the reply',
    );
    expect(both).toMatchObject({ leadId: ids['ann@client.com'], campaignId: c.id, mailboxId: box.body.id, nextCursor: null });
    expect(both.messages[0]).toMatchObject({ direction: 'out', step: 0, messageId: bare(first.messageId), subject: first.subject });
    expect(both.messages[0].text.trim()).toBe(first.text!.trim());
    expect(both.messages[1]).toMatchObject({
      direction: 'in',
      fromEmail: 'ann@client.com',
      subject: `Re: ${first.subject}`,
      status: expect.any(String),
    });
    expect(both.messages[1].text).toContain(words);

    // The answer, sent twice with one Idempotency-Key (a double click): one 202, one email.
    const key = { 'Idempotency-Key': `answer-${Date.now()}` };
    const text = 'Tuesday at 10:00 works. I will send an invite.';
    const sent = await api.request('POST', `/v1/leads/${ids['ann@client.com']}/messages`, { text }, key);
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const again = await api.request('POST', `/v1/leads/${ids['ann@client.com']}/messages`, { text }, key);
    expect(again.status).toBe(202);
    expect(again.body.messageId).toBe(sent.body.messageId);
    const copy = await eventually(
      async () => smtp.messages.find((m) => bare(m.messageId) === sent.body.messageId),
      20_000,
      'the answer at the SMTP server',
    );
    // Threaded under the reply, from the pinned mailbox, with the footer and the RFC 8058 headers.
    expect(copy.envelope).toMatchObject({ from: email, to: ['ann@client.com'] });
    expect(header(copy, 'from')).toContain(email);
    expect(copy.subject).toBe(`Re: ${first.subject}`);
    expect(bare(copy.inReplyTo)).toBe(replyId);
    expect(copy.references.map(bare)).toEqual([bare(first.messageId), replyId]);
    expect(copy.text).toContain(text);
    expect(copy.text).toContain('1 Main St');
    expect(copy.text).toMatch(/unsubscribe/i);
    expect(header(copy, 'list-unsubscribe')).toMatch(/^<https?:\/\/.+>$/);
    expect(header(copy, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');

    // The conversation shows the answer as sent, a person's (step null).
    const three = await eventually(
      async () => {
        const got = await api.request('GET', path);
        return got.body.messages?.length === 3 ? got.body : undefined;
      },
      20_000,
      'the answer in the conversation',
    );
    expect(three.messages[2]).toMatchObject({
      direction: 'out',
      step: null,
      messageId: sent.body.messageId,
      subject: `Re: ${first.subject}`,
    });
    expect(three.messages[2].text).toContain(text);

    // A suppressed address: 409, and nothing goes.
    expect((await api.request('POST', `/v1/leads/${ids['bo@client.com']}/suppress`)).status).toBe(200);
    const refused = await api.request('POST', `/v1/leads/${ids['bo@client.com']}/messages`, { text: 'Hello again?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/suppressed/);
    expect((await api.request('POST', `/v1/leads/${ids['ann@client.com']}/messages`, { text: '  ' })).status).toBe(422);
    expect((await api.request('POST', '/v1/leads/nobody/messages', { text: 'Hi' })).status).toBe(404);

    // Time for a second copy of the answer, or a message to the suppressed address, to have shown up: none did.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(smtp.messages.filter((m) => bare(m.messageId) === sent.body.messageId)).toHaveLength(1);
    expect(smtp.messages.filter((m) => m.envelope.to[0] === 'ann@client.com')).toHaveLength(2);
    expect(smtp.messages.filter((m) => m.envelope.to[0] === 'bo@client.com')).toHaveLength(1);
  });
});
