/**
 * The console's inbox in a real Chromium, on real mail: the engine's first
 * emails reach a real SMTP server, the leads answer into a real Dovecot, and
 * the replies appear in the inbox (sender, subject, snippet, status). A person
 * sets a status, marks read, snoozes and answers from the conversation, and
 * the answer reaches the SMTP server. A reply written to attack the reader
 * (`<script>`, `<img onerror>`) shows as text and runs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { axeViolations, expectOnlyOwnOrigin, openConsole, signIn } from '../helpers/console.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually } from '../helpers/fixtures.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import * as inbound from '../fixtures/inbound.ts';
import { REPLY_STATUSES, type ReplyStatus } from '../../packages/console/src/words.ts';

const PASS = 'console-inbox-password';
const MAILBOX = 'sam@inboxco.com';

let dovecot: TestDovecot;
let smtp: TestSmtpServer;
let engine: TestEngine;
let browser: Browser;
const smtpUsers: Record<string, string> = { [MAILBOX]: PASS };

beforeAll(async () => {
  const launching = launchBrowser();
  dovecot = await startDovecot({});
  smtp = await startSmtpServer({ users: smtpUsers });
  // A mailbox is read about every second of wall time; the follow-up waits 30 days (4 minutes), past the end of the test.
  engine = await startTestEngine({ realTime: true, timeScale: 10_000 });
  await engine.api.login();
  browser = await launching;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await engine?.stop();
  await smtp?.stop();
  await dovecot?.stop();
});

const HOSTILE_SUBJECT = 'Re: <img src=x onerror="window.__pwned=1">';
const HOSTILE_BODY = '<script>window.__pwned=2</script><img src=x onerror="window.__pwned=3"> <b>bold?</b>';

describe('the console inbox', { timeout: 120_000 }, () => {
  it('shows replies as they arrive, sets a status, marks read, snoozes, answers to the SMTP server, and renders a hostile reply inert', async () => {
    const api = engine.api;
    const domain = await domainWithAddress(api, 'inboxco.com');
    await dovecot.addUser(MAILBOX, PASS);
    const box = await api.request('POST', '/v1/mailboxes', {
      email: MAILBOX,
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
    const c = await campaign(api, {
      name: 'Inbox campaign',
      mailboxIds: [box.body.id],
      steps: [{ waitDays: 30, body: 'Just bumping this, {{firstName}}.' }],
    });
    for (const email of ['ann@client.com', 'eve@client.com']) {
      expect((await api.request('POST', '/v1/leads', { campaignId: c.id, email, firstName: email.split('@')[0] })).status).toBe(201);
    }
    expect((await api.request('POST', `/v1/campaigns/${c.id}/launch`)).status).toBe(200);
    const firstTo = (to: string) =>
      eventually(async () => smtp.messages.find((m) => m.envelope.to[0] === to), 20_000, `the first email to ${to}`);
    const toAnn = await firstTo('ann@client.com');
    const toEve = await firstTo('eve@client.com');

    const { page, requests, problems } = await openConsole(browser, engine.url);
    await signIn(page);
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();

    // Ann answers in the thread while the inbox is open: it appears by itself.
    const words = 'Sounds good. What does Tuesday look like for a call?';
    await dovecot.deliver(
      MAILBOX,
      inbound.reply({
        mailbox: MAILBOX,
        from: 'ann@client.com',
        subject: `Re: ${toAnn.subject}`,
        body: words,
        date: new Date(),
        inReplyTo: toAnn.messageId,
        references: [toAnn.messageId!],
        original: toAnn.text,
      }),
    );
    const annRow = page.getByRole('listitem').filter({ hasText: 'ann@client.com' });
    await annRow.waitFor({ timeout: 40_000 });
    const [annReply] = (await api.request('GET', '/v1/replies')).body.replies;
    expect(await annRow.textContent()).toContain(`Re: ${toAnn.subject}`);
    expect(await annRow.textContent()).toContain('Sounds good');
    expect(await annRow.locator('.status').textContent()).toBe(REPLY_STATUSES[annReply.status as ReplyStatus]);
    expect(await axeViolations(page)).toEqual([]);

    // Eve's reply is written to attack whoever reads it.
    await dovecot.deliver(
      MAILBOX,
      inbound.reply({
        mailbox: MAILBOX,
        from: 'eve@client.com',
        subject: HOSTILE_SUBJECT,
        body: HOSTILE_BODY,
        date: new Date(),
        inReplyTo: toEve.messageId,
        references: [toEve.messageId!],
        original: toEve.text,
      }),
    );
    const eveRow = page.getByRole('listitem').filter({ hasText: 'eve@client.com' });
    await eveRow.waitFor({ timeout: 40_000 });
    // Newest first: Eve's reply above Ann's.
    const senders = await page.getByRole('region', { name: 'Replies' }).locator('.from').allTextContents();
    expect(senders).toEqual(['eve@client.com', 'ann@client.com']);
    expect(await eveRow.textContent()).toContain('<img src=x onerror="window.__pwned=1">');

    // Ann's conversation: set the status, mark read, snooze, answer.
    await annRow.getByRole('button').click();
    await page.getByRole('region', { name: 'Conversation' }).getByText(words).waitFor();
    await page.getByLabel('Status').selectOption('MEETING_BOOKED');
    await page.getByRole('status').filter({ hasText: 'Status saved' }).waitFor();
    await page.getByRole('button', { name: 'Mark read' }).click();
    await page.getByRole('button', { name: 'Mark unread' }).waitFor();
    await page.getByLabel('Snooze until').fill('2099-01-01T09:00');
    await page.getByRole('button', { name: 'Snooze', exact: true }).click();
    await page.getByText(/Snoozed until/).waitFor();
    const stored = (await api.request('GET', '/v1/replies')).body.replies.find((r: { id: string }) => r.id === annReply.id);
    expect(stored).toMatchObject({ status: 'MEETING_BOOKED', statusSource: 'person', read: true });
    expect(stored.snoozedUntil).toMatch(/^2099-01-01/);
    expect(await axeViolations(page)).toEqual([]);

    const answer = 'Tuesday at 10:00 works. I will send an invite.';
    await page.getByLabel('Answer').fill(answer);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('status').filter({ hasText: 'on its way' }).waitFor();
    const copy = await eventually(
      async () => smtp.messages.find((m) => m.envelope.to[0] === 'ann@client.com' && m.text?.includes(answer)),
      30_000,
      'the answer at the SMTP server',
    );
    expect(copy.subject).toBe(`Re: ${toAnn.subject}`);
    expect(copy.envelope.from).toBe(MAILBOX);

    // Back in the list, the status filter keeps only Ann's.
    await page.getByRole('button', { name: 'Back to the inbox' }).click();
    await page.getByLabel('Filter by status').selectOption('MEETING_BOOKED');
    await eventually(
      async () =>
        (await page.getByRole('region', { name: 'Replies' }).locator('.from').allTextContents()).join() === 'ann@client.com' || undefined,
      15_000,
      'only the meeting-booked reply',
    );

    // Unread only: Ann's is read (and snoozed), Eve's is not.
    await page.getByLabel('Filter by status').selectOption('');
    await page.getByLabel('Unread only').check();
    await eventually(
      async () =>
        (await page.getByRole('region', { name: 'Replies' }).locator('.from').allTextContents()).join() === 'eve@client.com' || undefined,
      15_000,
      'only the unread reply',
    );
    await page.getByLabel('Unread only').uncheck();

    // Eve's conversation: her markup is shown as text, and nothing in it ran or loaded.
    await eveRow.getByRole('button').click();
    const thread = page.getByRole('region', { name: 'Conversation' });
    await thread.getByText('<script>window.__pwned=2</script>', { exact: false }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(HOSTILE_SUBJECT);
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    expect(await page.locator('img, script:not([src]), b').count()).toBe(0);
    expect(requests.filter((u) => new URL(u).pathname === '/x')).toEqual([]);

    expectOnlyOwnOrigin(requests, engine.url);
    expect(problems).toEqual([]);
    await page.close();
  });
});
