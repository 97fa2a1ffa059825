/**
 * Variants end to end: a campaign of 220 leads over 2 variants of its first
 * email sends over real SMTP; each lead gets one variant, balanced; leads
 * answer in their threads into a real Dovecot, the poller reads the answers,
 * and a person marks them with PATCH /v1/replies/{id}, as from the inbox.
 * The figures follow the person's changes, a winner is named at 30 positive
 * of about 110 against 3 (campaign.winner to a webhook), and it stays. A
 * lead whose two answers are marked at the same moment counts once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually } from '../helpers/fixtures.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import * as inbound from '../fixtures/inbound.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

const PASS = 'rep-password';
const LEADS = 220;
const MAILBOXES = ['ada', 'bob', 'cy', 'di'];

let dovecot: TestDovecot;
let smtp: TestSmtpServer;
let engine: TestEngine;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const smtpUsers: Record<string, string> = {};

beforeAll(async () => {
  dovecot = await startDovecot({});
  smtp = await startSmtpServer({ users: smtpUsers });
  receiver = await startReceiver();
  // A mailbox is read about every second of wall time; the follow-up waits 30 days, past the end of the test.
  engine = await startTestEngine({ realTime: true, timeScale: 10_000 });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
  await dovecot?.stop();
  await receiver?.stop();
});

type LeadRow = { id: string; email: string; variant: number | null };

async function leadsOf(campaignId: string): Promise<LeadRow[]> {
  const res = await engine.api.request('GET', `/v1/leads?campaignId=${campaignId}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.leads;
}

describe('variants over SMTP and IMAP', { timeout: 240_000 }, () => {
  it('220 leads over 2 variants: balanced, each keeps its variant, a person’s marks move the figures, and the winner is named once', async () => {
    const api = engine.api;
    const hook = await api.request('POST', '/v1/webhooks', { url: `${receiver.url}/hook`, events: ['campaign.winner'] });
    expect(hook.status).toBe(201);
    const domain = await domainWithAddress(api, 'variantco.com');
    const boxIds: string[] = [];
    for (const local of MAILBOXES) {
      const email = `${local}@variantco.com`;
      await dovecot.addUser(email, PASS);
      smtpUsers[email] = PASS;
      const box = await api.request('POST', '/v1/mailboxes', {
        email,
        domainId: domain.id,
        authPassword: PASS,
        dailyCap: 1000,
        senderName: local,
        smtpHost: '127.0.0.1',
        smtpPort: smtp.port,
        imapHost: '127.0.0.1',
        imapPort: dovecot.imapPort,
      });
      expect(box.status, JSON.stringify(box.body)).toBe(201);
      boxIds.push(box.body.id);
    }
    const variants = [
      { subject: 'Plain {question|note}, {{firstName}}', template: 'Hi {{firstName}},\n\nVariant one: would a short call make sense?' },
      { subject: 'An idea for {{company}}', template: 'Hello {{firstName}},\n\nVariant two: we help teams like {{company}}.' },
    ];
    const c = await campaign(api, { mailboxIds: boxIds, variants, steps: [{ waitDays: 30, body: 'Just bumping this, {{firstName}}.' }] });
    expect(c).toMatchObject({ variants, autoWinner: false });
    const people = Array.from({ length: LEADS }, (_, i) => `lead${i}@client.com`);
    const form = new FormData();
    form.append('campaignId', c.id);
    form.append(
      'file',
      new Blob(['email,first name,company\n' + people.map((email) => `${email},${email.split('@')[0]},Co`).join('\n')], {
        type: 'text/csv',
      }),
      'leads.csv',
    );
    const imported = await checkedFetch(`${engine.url}/v1/leads/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}` },
      body: form,
    });
    expect(imported.status).toBe(200);
    const launched = await api.request('POST', `/v1/campaigns/${c.id}/launch`);
    expect(launched.status, JSON.stringify(launched.body)).toBe(200);

    const first = new Map<string, ReceivedMessage>();
    await eventually(
      async () => {
        for (const m of smtp.messages) if (!first.has(m.envelope.to[0]!)) first.set(m.envelope.to[0]!, m);
        return first.size === LEADS;
      },
      120_000,
      `the ${LEADS} first emails`,
    );

    // Each lead has one variant, got that variant's copy, and the variants are within 2 of each other.
    const rows = await leadsOf(c.id);
    expect(rows).toHaveLength(LEADS);
    const by = [0, 1].map((v) => rows.filter((r) => r.variant === v));
    expect(by[0]!.length + by[1]!.length).toBe(LEADS);
    expect(Math.abs(by[0]!.length - by[1]!.length)).toBeLessThanOrEqual(2);
    for (const r of rows) {
      const m = first.get(r.email)!;
      expect(m.text).toContain(r.variant === 0 ? 'Variant one' : 'Variant two');
      expect(m.subject).toMatch(r.variant === 0 ? /^Plain (question|note), lead\d+$/ : /^An idea for Co$/);
    }
    expect(smtp.messages.filter((m) => m.envelope.to[0] === rows[0]!.email)).toHaveLength(1);

    const figures = async () => (await api.request('GET', `/v1/campaigns/${c.id}/variants`)).body;
    const before = await figures();
    expect(before).toMatchObject({ winner: null, method: expect.stringMatching(/sequential probability ratio.*Holm/) });
    expect(before.variants.map((v: { sent: number }) => v.sent)).toEqual([by[0]!.length, by[1]!.length]);

    // 30 leads of variant 1 and 3 of variant 0 answer in their threads, in words the rules cannot read.
    const answering = [...by[1]!.slice(0, 30), ...by[0]!.slice(0, 3)];
    for (const r of answering) {
      const to = first.get(r.email)!;
      const mailbox = to.envelope.from;
      await dovecot.deliver(
        mailbox,
        inbound.reply({
          mailbox,
          from: r.email,
          subject: `Re: ${to.subject}`,
          body: 'Received, thank you.',
          inReplyTo: to.messageId,
          references: [to.messageId!],
          original: to.text,
        }),
      );
    }
    const replies = await eventually(
      async () => {
        const res = await api.request('GET', `/v1/replies?campaignId=${c.id}&limit=200`);
        return res.body.replies.length === answering.length ? res.body.replies : undefined;
      },
      60_000,
      'the 33 replies read',
    );
    const read = await figures();
    expect(read.variants.map((v: { replied: number; positive: number }) => [v.replied, v.positive])).toEqual([
      [3, 0],
      [30, 0],
    ]);
    expect(read.winner).toBeNull();

    // A person marks them, as from the inbox: positive statuses of each kind, then one taken back.
    const statuses = ['INTERESTED', 'MEETING_BOOKED', 'WON'];
    for (const [i, reply] of (replies as { id: string }[]).entries()) {
      const res = await api.request('PATCH', `/v1/replies/${reply.id}`, { status: statuses[i % 3] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const marked = await figures();
    expect(marked.variants.map((v: { positive: number }) => v.positive)).toEqual([3, 30]);
    expect(marked.winner).toBe(1);
    const winnerEvents = () =>
      receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: unknown }).filter((e) => e.type === 'campaign.winner');
    const event = await eventually(async () => winnerEvents()[0], 60_000, 'campaign.winner');
    expect(event.data).toEqual({ campaignId: c.id, winner: 1, method: marked.method });

    // A person's change moves the figures back; the winner, once named, stays; no second event.
    const leadOfReply = new Map((replies as { id: string; leadId: string }[]).map((r) => [r.leadId, r.id]));
    for (const r of by[1]!.slice(0, 10)) await api.request('PATCH', `/v1/replies/${leadOfReply.get(r.id)}`, { status: 'NOT_INTERESTED' });
    const after = await figures();
    expect(after.variants[1].positive).toBe(20);
    expect(after.winner).toBe(1);
    expect(winnerEvents()).toHaveLength(1);

    // A lead answers twice; two people mark both answers positive at the same moment, then both back: on DynamoDB the
    // second write finds the lead's count moved, reads it again, and the lead counts once, then not at all.
    const twice = by[0]![3]!;
    const to = first.get(twice.email)!;
    for (const body of ['Received, thank you.', 'Received the second note too, thanks.'])
      await dovecot.deliver(
        to.envelope.from,
        inbound.reply({
          mailbox: to.envelope.from,
          from: twice.email,
          subject: `Re: ${to.subject}`,
          body,
          inReplyTo: to.messageId,
          references: [to.messageId!],
          original: to.text,
        }),
      );
    const both = await eventually(
      async () => {
        const res = await api.request('GET', `/v1/replies?campaignId=${c.id}&limit=200`);
        const own = (res.body.replies as { id: string; leadId: string }[]).filter((r) => r.leadId === twice.id);
        return own.length === 2 ? own : undefined;
      },
      60_000,
      'the two answers of one lead read',
    );
    const markBoth = (status: string) =>
      Promise.all(both.map((r) => api.request('PATCH', `/v1/replies/${r.id}`, { status }))).then((answers) =>
        answers.forEach((res) => expect(res.status, JSON.stringify(res.body)).toBe(200)),
      );
    await markBoth('INTERESTED');
    expect((await figures()).variants[0]).toMatchObject({ replied: 4, positive: 4 });
    await markBoth('NOT_INTERESTED');
    expect((await figures()).variants[0]).toMatchObject({ replied: 4, positive: 3 });

    // Variants cannot change once used.
    const patched = await api.request('PATCH', `/v1/campaigns/${c.id}`, { variants: [variants[1], variants[0]] });
    expect(patched.status).toBe(409);
    expect(patched.body.error).toMatch(/variants cannot change/);
  });
});
