/**
 * Reply statuses end to end: the engine sends real first emails over SMTP, the leads answer in their
 * threads (quoting the email, footer and Unsubscribe link included) into a real Dovecot, the poller reads
 * them, and each reply gets its status from its own words; a removal request suppresses the address,
 * and a person's PATCH sends reply.status_changed to a webhook receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as Verifier } from 'standardwebhooks';
import * as suppression from '@outbound/core/suppression/index';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually } from '../helpers/fixtures.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { startAiStub, type AiStub } from '../helpers/ai-stub.ts';
import * as inbound from '../fixtures/inbound.ts';

const PASS = 'rep-password';
type Event = { id: string; type: string; data: Record<string, unknown> };

let dovecot: TestDovecot;
let smtp: TestSmtpServer;
let engine: TestEngine;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let ai: AiStub;
let hookSecret: string;
const smtpUsers: Record<string, string> = {};

beforeAll(async () => {
  dovecot = await startDovecot({});
  smtp = await startSmtpServer({ users: smtpUsers });
  receiver = await startReceiver();
  ai = await startAiStub();
  // The stub writes first emails in plain words, and sorts a framed reply as INTERESTED.
  ai.setReply((prompt) => (prompt.startsWith('<reply>') ? 'INTERESTED' : 'Hello from the stub, a short note about your team.'));
  // A mailbox is read about every second of wall time; the follow-up waits 30 days, past the end of the test.
  engine = await startTestEngine({
    realTime: true,
    timeScale: 10_000,
    openaiBaseUrl: ai.openaiBaseUrl,
    anthropicBaseUrl: ai.anthropicBaseUrl,
  });
  await engine.api.login();
  const made = await engine.api.request('POST', '/v1/webhooks', {
    url: `${receiver.url}/hook`,
    events: ['reply.received', 'reply.status_changed', 'lead.unsubscribed'],
  });
  expect(made.status).toBe(201);
  hookSecret = made.body.secret;
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
  await dovecot?.stop();
  await receiver?.stop();
  await ai?.stop();
});

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A mailbox on the test SMTP server and Dovecot, a campaign from it launched to `people`, and each first email as received. */
async function mailedCampaign(domainName: string, people: string[], extra: Record<string, unknown> = {}) {
  const api = engine.api;
  const domain = await domainWithAddress(api, domainName);
  const email = `rita@${domainName}`;
  await dovecot.addUser(email, PASS);
  smtpUsers[email] = PASS;
  const box = await api.request('POST', '/v1/mailboxes', {
    email,
    domainId: domain.id,
    authPassword: PASS,
    dailyCap: 1000,
    senderName: 'Rita Rep',
    smtpHost: '127.0.0.1',
    smtpPort: smtp.port,
    imapHost: '127.0.0.1',
    imapPort: dovecot.imapPort,
  });
  expect(box.status, JSON.stringify(box.body)).toBe(201);
  const c = await campaign(api, {
    mailboxIds: [box.body.id],
    steps: [{ waitDays: 30, body: 'Just bumping this, {{firstName}}.' }],
    ...extra,
  });
  const ids: Record<string, string> = {};
  for (const address of people)
    ids[address] = (
      await api.request('POST', '/v1/leads', { campaignId: c.id, email: address, firstName: address.split('@')[0], company: 'Co' })
    ).body.id;
  const launched = await api.request('POST', `/v1/campaigns/${c.id}/launch`);
  expect(launched.status, JSON.stringify(launched.body)).toBe(200);
  const first: Record<string, ReceivedMessage> = {};
  for (const address of people)
    first[address] = await eventually(
      async () => smtp.messages.find((m) => m.envelope.to[0] === address),
      20_000,
      `the first email to ${address}`,
    );
  return { box, c, ids, first, email };
}

/** The lead's answer in its thread, as Gmail writes it: the email it answers quoted below, footer and all. */
const answerIn = (mailbox: string, to: ReceivedMessage, from: string, body: string, date = new Date()) =>
  dovecot.deliver(
    mailbox,
    inbound.reply({
      mailbox,
      from,
      subject: `Re: ${to.subject}`,
      body,
      date,
      inReplyTo: to.messageId,
      references: [to.messageId!],
      original: to.text,
    }),
  );

describe('reply statuses over IMAP', { timeout: 120_000 }, () => {
  it('replies threaded under real first emails get their statuses; a removal request suppresses; a person’s PATCH sends reply.status_changed', async () => {
    const api = engine.api;
    const { box, c, ids, first, email } = await mailedCampaign('statusco.com', [
      'ann@client.com',
      'bernd@kunde.de',
      'cleo@client.com',
      'dev@client.com',
    ]);
    expect(first['ann@client.com']!.text).toMatch(/unsubscribe/i);
    const written = new Date();
    const answer = (from: string, body: string) => answerIn(email, first[from]!, from, body, written);
    // Each quotes the email it answers, with its footer and "Unsubscribe" link: the quote never decides.
    await answer('ann@client.com', 'This looks relevant for us. Could we set up a call on Thursday afternoon?');
    await answer('bernd@kunde.de', 'Bitte entfernen Sie mich aus Ihrem Verteiler und kontaktieren Sie mich nicht mehr.');
    await answer('cleo@client.com', 'Not a good time, we are in the middle of a migration. Please reach out again in two weeks.');
    await answer('dev@client.com', 'I am not the right person for this. Please talk to my colleague Jana Novak at jana.novak@client.com.');

    const replies = await eventually(
      async () => {
        const listed = (await api.request('GET', `/v1/replies?campaignId=${c.id}`)).body.replies as Record<string, any>[];
        return listed.length === 4 ? listed : undefined;
      },
      30_000,
      'four replies listed',
    );
    const of = (from: string) => replies.find((r) => r.fromEmail === from)!;
    expect(of('ann@client.com')).toMatchObject({ status: 'INTERESTED', statusSource: 'rules', read: false, referral: null });
    expect(of('bernd@kunde.de')).toMatchObject({ status: 'UNSUBSCRIBE', statusSource: 'rules' });
    expect(of('cleo@client.com')).toMatchObject({
      status: 'NOT_NOW',
      followUpOn: day(Date.UTC(written.getUTCFullYear(), written.getUTCMonth(), written.getUTCDate() + 14)),
    });
    expect(of('dev@client.com')).toMatchObject({
      status: 'WRONG_PERSON',
      referral: { email: 'jana.novak@client.com', name: 'Jana Novak' },
    });

    // The removal request suppressed the address in every campaign; the interested lead quoting the footer was never suppressed.
    expect(await suppression.isSuppressed(engine.deps, 'bernd@kunde.de')).toBe(true);
    expect(await suppression.isSuppressed(engine.deps, 'ann@client.com')).toBe(false);
    const leads = (await api.request('GET', `/v1/leads?campaignId=${c.id}`)).body.leads as { id: string; status: string }[];
    expect(leads.find((l) => l.id === ids['bernd@kunde.de'])!.status).toBe('SUPPRESSED');
    expect(leads.find((l) => l.id === ids['ann@client.com'])!.status).toBe('REPLIED');
    // The same address added to another campaign is suppressed on the way in.
    const other = await campaign(api, { mailboxIds: [box.body.id] });
    const again = await api.request('POST', '/v1/leads', { campaignId: other.id, email: 'bernd@kunde.de' });
    expect(again.status, JSON.stringify(again.body)).toBe(409);

    // Filters: the interested reply alone, then nothing unread once it is read.
    const interested = await api.request('GET', `/v1/replies?status=INTERESTED,MEETING_BOOKED&unread=true&mailboxId=${box.body.id}`);
    expect(interested.body.replies.map((r: { fromEmail: string }) => r.fromEmail)).toEqual(['ann@client.com']);

    // A person books the meeting: the status is theirs, and the receiver hears of the change.
    const patched = await api.request('PATCH', `/v1/replies/${of('ann@client.com').id}`, { status: 'MEETING_BOOKED', read: true });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ status: 'MEETING_BOOKED', statusSource: 'person', read: true });
    expect((await api.request('GET', `/v1/replies?status=INTERESTED,MEETING_BOOKED&unread=true`)).body.replies).toHaveLength(0);
    expect((await api.request('PATCH', `/v1/replies/${of('ann@client.com').id}`, { status: 'SOMEDAY' })).status).toBe(422);
    expect((await api.request('PATCH', '/v1/replies/unknown', { read: true })).status).toBe(404);

    const events = await eventually(
      async () => {
        const got = receiver.received.map((r) => new Verifier(hookSecret).verify(r.body, r.headers) as Event);
        const unique = [...new Map(got.map((e) => [e.id, e])).values()];
        return unique.filter((e) => e.type === 'reply.received').length === 4 &&
          unique.some((e) => e.type === 'reply.status_changed') &&
          unique.some((e) => e.type === 'lead.unsubscribed')
          ? unique
          : undefined;
      },
      30_000,
      'reply.received ×4, lead.unsubscribed and reply.status_changed at the receiver',
    );
    for (const e of events.filter((x) => x.type === 'reply.received')) {
      const row = replies.find((r) => r.id === e.data.replyId)!;
      expect(e.data.status).toBe(row.status);
    }
    expect(events.find((e) => e.type === 'reply.status_changed')!.data).toEqual({
      replyId: of('ann@client.com').id,
      leadId: ids['ann@client.com'],
      campaignId: c.id,
      status: 'MEETING_BOOKED',
      previousStatus: 'INTERESTED',
      source: 'person',
    });
    expect(events.find((e) => e.type === 'lead.unsubscribed')!.data).toMatchObject({
      leadId: ids['bernd@kunde.de'],
      email: 'bernd@kunde.de',
    });
  });

  it('the customer’s AI reads what the rules could not, once, and says so with reply.status_changed (source ai); without a provider nothing is sent to it', async () => {
    const api = engine.api;
    expect((await api.request('PUT', '/v1/ai-keys/openai', { apiKey: 'sk-test-1234567890abcdef' })).status).toBe(204);
    const withAi = await mailedCampaign('aico.com', ['hana@client.com'], { aiProvider: 'OPENAI' });
    const without = await mailedCampaign('plainai.com', ['ivo@client.com']);
    const asked = () => ai.requests.filter((r) => JSON.stringify(r.body).includes('<reply>'));
    await answerIn(withAi.email, withAi.first['hana@client.com']!, 'hana@client.com', 'Hmm.');
    await answerIn(without.email, without.first['ivo@client.com']!, 'ivo@client.com', 'Hmm.');
    const hana = await eventually(
      async () => {
        const [r] = (await api.request('GET', `/v1/replies?campaignId=${withAi.c.id}`)).body.replies;
        return r?.statusSource === 'ai' ? r : undefined;
      },
      30_000,
      'the AI’s status on Hana’s reply',
    );
    expect(hana).toMatchObject({ status: 'INTERESTED', statusSource: 'ai' });
    const ivo = await eventually(
      async () => (await api.request('GET', `/v1/replies?campaignId=${without.c.id}`)).body.replies[0],
      30_000,
      'Ivo’s reply',
    );
    expect(ivo).toMatchObject({ status: 'NEEDS_REVIEW', statusSource: 'rules' });
    expect(asked()).toHaveLength(1);
    expect(JSON.stringify(asked()[0]!.body)).toContain('Hmm.');
    expect(JSON.stringify(asked()[0]!.body)).not.toContain('ivo@client.com');
    const changed = await eventually(
      async () => {
        const got = receiver.received
          .map((r) => new Verifier(hookSecret).verify(r.body, r.headers) as Event)
          .filter((e) => e.type === 'reply.status_changed' && e.data.replyId === hana.id);
        return got[0];
      },
      30_000,
      'reply.status_changed for the AI’s status',
    );
    expect(changed.data).toMatchObject({ status: 'INTERESTED', previousStatus: 'NEEDS_REVIEW', source: 'ai' });
  });
});
