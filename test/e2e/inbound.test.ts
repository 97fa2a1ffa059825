/**
 * Reading mailboxes, end to end: the engine sends over a real SMTP server,
 * real messages (written the way Gmail, Outlook, Postfix, Exchange and
 * feedback loops write them) land in a real Dovecot, and the poller reads them.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxStateKey } from '@outbound/core/inbound/keys';
import { leadKey } from '@outbound/core/lead/keys';
import { mailboxKey } from '@outbound/core/mailbox/keys';
import { passwordContext } from '@outbound/core/mailbox/access';
import { pairDayKey } from '@outbound/core/guardrails/breaker.keys';
import { utcDay } from '@outbound/core/guardrails/breaker';
import { sealSecret } from '@outbound/core/secrets/index';
import { getJob } from '@outbound/core/sending/jobs';
import { sendJob } from '@outbound/core/sending/sender';
import { transition } from '@outbound/core/lead/sequence';
import { fromItem as leadFromItem } from '@outbound/core/lead/entity';
import type { Store } from '@outbound/core/ports/store';
import { jobId } from '@outbound/core/sending/keys';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually } from '../helpers/fixtures.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';
import * as inbound from '../fixtures/inbound.ts';
import * as hostile from '../fixtures/hostile.ts';

const run = promisify(execFile);
const PASS = 'rep-password';

let dovecot: TestDovecot;
let smtp: TestSmtpServer;
let engine: TestEngine;
/** The SMTP server's logins: each mailbox adds its own. */
const smtpUsers: Record<string, string> = {};

beforeAll(async () => {
  dovecot = await startDovecot({});
  smtp = await startSmtpServer({ users: smtpUsers });
  // 10,000 engine seconds a second: a mailbox is read about every second of wall time (the floor), a day passes in 8.6 s.
  engine = await startTestEngine({ realTime: true, timeScale: 10_000 });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
  await dovecot?.stop();
});

/** A mailbox that sends through the test SMTP server and is read from the test Dovecot. */
async function readMailbox(domainName: string, local: string) {
  const api = engine.api;
  const domain = await domainWithAddress(api, domainName);
  const email = `${local}@${domainName}`;
  await dovecot.addUser(email, PASS);
  smtpUsers[email] = PASS;
  const res = await api.request('POST', '/v1/mailboxes', {
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
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; email: string };
}

async function launchWith(mailboxId: string, emails: string[], steps = [{ waitDays: 1, body: 'Just bumping this, {{firstName}}.' }]) {
  const api = engine.api;
  const c = await campaign(api, { mailboxIds: [mailboxId], steps });
  const ids: Record<string, string> = {};
  for (const email of emails) {
    const res = await api.request('POST', '/v1/leads', { campaignId: c.id, email, firstName: email.split('@')[0], company: 'Co' });
    expect(res.status).toBe(201);
    ids[email] = res.body.id;
  }
  const launched = await api.request('POST', `/v1/campaigns/${c.id}/launch`);
  expect(launched.status, JSON.stringify(launched.body)).toBe(200);
  return { campaignId: c.id as string, ids };
}

const sentTo = (to: string) => smtp.messages.filter((m) => m.envelope.to[0] === to);
const firstTo = (to: string) => eventually(async () => sentTo(to)[0], 20_000, `the first email to ${to}`) as Promise<ReceivedMessage>;
const lead = async (id: string) =>
  (
    await engine.api.request('GET', `/v1/leads?campaignId=${(await engine.deps.store.get(leadKey(id)))!.campaignId}&limit=1000`)
  ).body.leads.find((l: { id: string }) => l.id === id);
const campaignRow = async (id: string) => (await engine.api.request('GET', '/v1/campaigns')).body.find((c: { id: string }) => c.id === id);
const state = async (mailboxId: string) => engine.deps.store.get(inboxStateKey(mailboxId));
/** Waits until the poller has read the mailbox past the last message delivered to it (its cursor moved). */
async function readPast(mailboxId: string, uidAtLeast: number) {
  await eventually(
    async () => Number((await state(mailboxId))?.lastUid ?? 0) >= uidAtLeast,
    20_000,
    `the inbox read past UID ${uidAtLeast}`,
  );
}

describe('reading a mailbox', { timeout: 120_000 }, () => {
  it('a reply between two steps stops the follow-up that was due and is listed; an out-of-office changes nothing', async () => {
    const box = await readMailbox('replyco.com', 'rita');
    const { campaignId, ids } = await launchWith(box.id, ['ann@client.com', 'bob@client.com', 'cat@client.com', 'dot@client.com']);
    const toAnn = await firstTo('ann@client.com');
    const toBob = await firstTo('bob@client.com');
    await firstTo('cat@client.com');
    const toDot = await firstTo('dot@client.com');

    // Ann answers in the thread; Bob's out-of-office answers too (threaded, but automatic).
    await dovecot.deliver(
      box.email,
      inbound.reply({
        mailbox: box.email,
        from: 'ann@client.com',
        fromName: 'Ann Client',
        subject: `Re: ${toAnn.subject}`,
        body: 'Thanks, not right now. Maybe next quarter.',
        inReplyTo: toAnn.messageId,
        references: [toAnn.messageId!],
      }),
    );
    await dovecot.deliver(
      box.email,
      inbound.outOfOffice({
        mailbox: box.email,
        from: 'bob@client.com',
        inReplyTo: toBob.messageId,
        subject: `Automatic reply: ${toBob.subject}`,
        body: 'I am out of the office with limited access to email.',
        style: 'exchange',
      }),
    );
    // Dot is away and says until when: her next step waits for the day after.
    const back = new Date(Date.now() + 60 * 86_400_000);
    const backDay = back.toISOString().slice(0, 10);
    await dovecot.deliver(
      box.email,
      inbound.outOfOffice({
        mailbox: box.email,
        from: 'dot@client.com',
        inReplyTo: toDot.messageId,
        subject: `Auto: ${toDot.subject}`,
        body: `Thanks for your email. I'm on vacation, returning ${backDay}. I will reply when I am back.`,
        style: 'gmail',
      }),
    );
    await readPast(box.id, 3);

    const replies = await eventually(
      async () => {
        const res = await engine.api.request('GET', `/v1/replies?campaignId=${campaignId}`);
        return res.body.replies.length ? res.body : undefined;
      },
      20_000,
      'the reply in GET /v1/replies',
    );
    expect(replies.replies).toHaveLength(1);
    const [r] = replies.replies;
    expect(r).toMatchObject({
      campaignId,
      leadId: ids['ann@client.com'],
      mailboxId: box.id,
      fromEmail: 'ann@client.com',
      subject: `Re: ${toAnn.subject}`,
    });
    expect(r.snippet).toBe('Thanks, not right now. Maybe next quarter.');
    expect(Date.parse(r.receivedAt)).toBeGreaterThan(0);
    expect(replies.nextCursor).toBeNull();
    expect((await lead(ids['ann@client.com']!)).status).toBe('REPLIED');
    expect((await lead(ids['bob@client.com']!)).status).toBe('CONTACTED');
    expect((await lead(ids['dot@client.com']!)).status).toBe('CONTACTED');
    const held = await getJob(engine.deps, jobId(ids['dot@client.com']!, 1));
    expect(Number(held!.dueAt)).toBe(Date.parse(`${backDay}T00:00:00Z`) + 86_400_000);
    expect(await getJob(engine.deps, jobId(ids['ann@client.com']!, 1))).toMatchObject({ state: 'CANCELLED', reason: 'the lead replied' });
    const row = await campaignRow(campaignId);
    expect(row.repliesCount).toBe(1);
    expect(row.lastActivityAt).not.toBeNull();

    // The follow-ups go a day later (8.6 s): to Bob and Cat, never to Ann.
    await eventually(async () => sentTo('bob@client.com').length === 2 && sentTo('cat@client.com').length === 2, 40_000, 'the follow-ups');
    await new Promise((r) => setTimeout(r, 500));
    expect(sentTo('ann@client.com')).toHaveLength(1);
    expect(sentTo('dot@client.com')).toHaveLength(1);
    // Read again (the next polls) it is not counted twice.
    expect((await campaignRow(campaignId)).repliesCount).toBe(1);
    // Filters: since after it excludes it; another campaign has none.
    const later = new Date(Date.parse(r.receivedAt) + 1000).toISOString();
    expect(
      (await engine.api.request('GET', `/v1/replies?since=${encodeURIComponent(later)}`)).body.replies.filter(
        (x: { id: string }) => x.id === r.id,
      ),
    ).toHaveLength(0);
    expect((await engine.api.request('GET', '/v1/replies?limit=0')).status).toBe(422);
    expect((await engine.api.request('GET', '/v1/replies?since=yesterday')).status).toBe(422);

    // Erasing Ann reaches her reply: it stays counted and listed, without her address or words.
    expect((await engine.api.request('DELETE', '/v1/leads/erase', { email: 'ann@client.com' })).body).toEqual({ erased: 1 });
    const [erased] = (await engine.api.request('GET', `/v1/replies?campaignId=${campaignId}`)).body.replies;
    expect(erased).toMatchObject({ id: r.id, leadId: ids['ann@client.com'], subject: '', snippet: '' });
    expect(JSON.stringify(erased)).not.toContain('ann@client.com');
    expect((await campaignRow(campaignId)).repliesCount).toBe(1);
  });

  it('a reply without thread headers counts by its sender; References alone count; unrelated mail and the own sent copy change nothing; older mail is never read', async () => {
    const domainName = 'plainco.com';
    const email = `pia@${domainName}`;
    await dovecot.addUser(email, PASS);
    smtpUsers[email] = PASS;
    // Mail already in the mailbox when it is added: from an address that becomes a lead.
    await dovecot.deliver(
      email,
      inbound.reply({ mailbox: email, from: 'old@client.com', subject: 'Hello from before', body: 'An old message.' }),
    );
    await new Promise((r) => setTimeout(r, 1100));
    const domain = await domainWithAddress(engine.api, domainName);
    const created = await engine.api.request('POST', '/v1/mailboxes', {
      email,
      domainId: domain.id,
      authPassword: PASS,
      dailyCap: 1000,
      smtpHost: '127.0.0.1',
      smtpPort: smtp.port,
      imapHost: '127.0.0.1',
      imapPort: dovecot.imapPort,
    });
    expect(created.status).toBe(201);
    const box = created.body;
    const { campaignId, ids } = await launchWith(box.id, ['old@client.com', 'dan@client.com', 'eve@client.com', 'fay@client.com'], []);
    const toDan = await firstTo('dan@client.com');
    const toEve = await firstTo('eve@client.com');
    await firstTo('fay@client.com');
    await firstTo('old@client.com');

    // Appended over IMAP, as a mail client files a message, rather than delivered by a mail server.
    await dovecot.deliver(
      email,
      inbound.reply({ mailbox: email, from: 'dan@client.com', subject: 'about your note', body: 'Sure, call me Tuesday.' }),
      'INBOX',
      'imap',
    );
    await dovecot.deliver(
      email,
      inbound.reply({
        mailbox: email,
        from: 'someone.else@client.com',
        subject: `Re: ${toEve.subject}`,
        body: 'Eve asked me to answer.',
        references: ['unrelated@elsewhere.com', toEve.messageId!],
      }),
    );
    await dovecot.deliver(
      email,
      inbound.unrelated({ mailbox: email, from: 'news@vendor.com', subject: 'Our November newsletter', body: 'News.' }),
    );
    await dovecot.deliver(
      email,
      inbound.ownSentCopy({ mailbox: email, to: 'fay@client.com', messageId: toDan.messageId!, subject: toDan.subject!, body: 'copy' }),
    );
    await readPast(box.id, 5);

    await eventually(async () => (await campaignRow(campaignId)).repliesCount === 2, 20_000, 'two replies counted');
    expect((await lead(ids['dan@client.com']!)).status).toBe('REPLIED');
    expect((await lead(ids['eve@client.com']!)).status).toBe('REPLIED');
    expect((await lead(ids['fay@client.com']!)).status).not.toBe('REPLIED');
    expect((await lead(ids['old@client.com']!)).status).not.toBe('REPLIED');
    const listed = (await engine.api.request('GET', `/v1/replies?campaignId=${campaignId}`)).body.replies;
    expect(listed.map((x: { fromEmail: string }) => x.fromEmail).sort()).toEqual(['dan@client.com', 'someone.else@client.com']);
    // Newest first.
    expect(Date.parse(listed[0].receivedAt)).toBeGreaterThanOrEqual(Date.parse(listed[1].receivedAt));
    // Deleting a lead deletes what was read from it; the campaign's count stays.
    expect((await engine.api.request('DELETE', `/v1/leads/${ids['dan@client.com']}`)).status).toBe(204);
    const left = (await engine.api.request('GET', `/v1/replies?campaignId=${campaignId}`)).body.replies;
    expect(left.map((x: { fromEmail: string }) => x.fromEmail)).toEqual(['someone.else@client.com']);
    expect((await campaignRow(campaignId)).repliesCount).toBe(2);
  });

  it('a failed DSN bounces and suppresses exactly its lead, a delay changes nothing, a complaint suppresses; a UIDVALIDITY reset re-reads nothing twice', async () => {
    const box = await readMailbox('bounceco.com', 'bo');
    const { campaignId, ids } = await launchWith(box.id, ['gone@client.com', 'slow@client.com', 'angry@client.com', 'fine@client.com']);
    const toGone = await firstTo('gone@client.com');
    const toSlow = await firstTo('slow@client.com');
    const toAngry = await firstTo('angry@client.com');
    await firstTo('fine@client.com');

    await dovecot.deliver(
      box.email,
      inbound.postfixBounce({
        mailbox: box.email,
        recipient: 'gone@client.com',
        originalMessageId: toGone.messageId!,
        originalSubject: toGone.subject!,
        status: '5.1.1',
        action: 'failed',
      }),
    );
    await dovecot.deliver(
      box.email,
      inbound.exchangeBounce({
        mailbox: box.email,
        recipient: 'slow@client.com',
        originalMessageId: toSlow.messageId!,
        originalSubject: toSlow.subject!,
        status: '4.4.1',
        action: 'delayed',
      }),
    );
    await dovecot.deliver(
      box.email,
      inbound.arfComplaint({
        mailbox: box.email,
        recipient: 'angry@client.com',
        originalMessageId: toAngry.messageId!,
        originalSubject: toAngry.subject!,
      }),
    );
    await readPast(box.id, 3);

    await eventually(async () => (await lead(ids['gone@client.com']!)).status === 'BOUNCED', 20_000, 'the bounce');
    await eventually(async () => (await lead(ids['angry@client.com']!)).status === 'SUPPRESSED', 20_000, 'the complaint');
    expect((await lead(ids['slow@client.com']!)).status).toBe('CONTACTED');
    expect((await lead(ids['fine@client.com']!)).status).toBe('CONTACTED');
    // One bounce for the pair's breaker.
    const day = await engine.deps.store.get(pairDayKey(campaignId, box.id, 0, utcDay(engine.deps.clock.now())));
    const days = await engine.deps.store.query({ pk: `BREAKER#${campaignId}#${box.id}` });
    expect(days.items.reduce((n, d) => n + Number(d.bounces ?? 0), 0)).toBe(1);
    void day;
    // Suppressed install-wide: the addresses cannot come back in another campaign; the delayed one can.
    const other = await campaign(engine.api);
    for (const email of ['gone@client.com', 'angry@client.com']) {
      expect((await engine.api.request('POST', '/v1/leads', { campaignId: other.id, email })).status).toBe(409);
    }
    expect((await engine.api.request('POST', '/v1/leads', { campaignId: other.id, email: 'slow@client.com' })).status).toBe(201);
    // Neither the bounce nor the complaint is a reply.
    expect((await engine.api.request('GET', `/v1/replies?campaignId=${campaignId}`)).body.replies).toHaveLength(0);

    // The server renumbers INBOX (a restore, a migration): everything is read again, nothing counts twice.
    const before = Number((await state(box.id))!.uidValidity);
    await run('doveadm', [
      '-c',
      `${dovecot.dir}/dovecot.conf`,
      'mailbox',
      'update',
      '-u',
      box.email,
      '--uid-validity',
      String(before + 7),
      'INBOX',
    ]);
    await dovecot.deliver(
      box.email,
      inbound.reply({
        mailbox: box.email,
        from: 'fine@client.com',
        subject: 'Re: hi',
        body: 'Yes please.',
        inReplyTo: (await firstTo('fine@client.com')).messageId,
      }),
    );
    await eventually(async () => Number((await state(box.id))?.uidValidity) === before + 7, 20_000, 'the new UIDVALIDITY read');
    await eventually(async () => (await lead(ids['fine@client.com']!)).status === 'REPLIED', 20_000, 'the reply after the reset');
    const after = await engine.deps.store.query({ pk: `BREAKER#${campaignId}#${box.id}` });
    expect(after.items.reduce((n, d) => n + Number(d.bounces ?? 0), 0)).toBe(1);
    expect((await campaignRow(campaignId)).repliesCount).toBe(1);
  });

  it('notices that look like replies bounce their lead and are never replies; a full mailbox at 5.x.x, a vacation without headers and a person quoting 550 5.1.1 do what they are', async () => {
    const box = await readMailbox('gapsco.com', 'gil');
    // Addresses no other test here uses: a suppression is install-wide.
    const { campaignId, ids } = await launchWith(box.id, [
      'gone@gaps.client.com',
      'mobile@ezweb.example.jp',
      'full@gaps.client.com',
      'away@gaps.client.com',
      'dana@gaps.client.com',
    ]);
    const to = Object.fromEntries(await Promise.all(Object.keys(ids).map(async (email) => [email, await firstTo(email)] as const)));
    const about = (email: string) => ({
      mailbox: box.email,
      recipient: email,
      originalMessageId: to[email]!.messageId!,
      originalSubject: to[email]!.subject!,
    });

    // A list manager's report and a carrier gateway's, both threaded under the engine's email, from ordinary addresses.
    await dovecot.deliver(box.email, inbound.listManagerNotice(about('gone@gaps.client.com')));
    await dovecot.deliver(box.email, inbound.carrierGatewayNotice(about('mobile@ezweb.example.jp')));
    await dovecot.deliver(
      box.email,
      inbound.postfixBounce({
        ...about('full@gaps.client.com'),
        status: '5.0.0',
        diagnostic: '552 Requested mail action aborted: mailbox quota exceeded',
      }),
    );
    await dovecot.deliver(
      box.email,
      inbound.reply({
        mailbox: box.email,
        from: 'away@gaps.client.com',
        subject: `Re: ${to['away@gaps.client.com']!.subject}`,
        body: inbound.VACATION_TEXTS.de!,
        inReplyTo: to['away@gaps.client.com']!.messageId,
      }),
    );
    await dovecot.deliver(
      box.email,
      inbound.reply({
        mailbox: box.email,
        from: 'dana@gaps.client.com',
        subject: `Re: ${to['dana@gaps.client.com']!.subject}`,
        inReplyTo: to['dana@gaps.client.com']!.messageId,
        body: 'My old colleague got "550 5.1.1 User unknown" from your other email. I am interested, call me.',
      }),
    );
    await readPast(box.id, 5);

    await eventually(async () => (await lead(ids['gone@gaps.client.com']!)).status === 'BOUNCED', 20_000, "the list manager's notice");
    await eventually(async () => (await lead(ids['mobile@ezweb.example.jp']!)).status === 'BOUNCED', 20_000, "the gateway's notice");
    await eventually(async () => (await lead(ids['dana@gaps.client.com']!)).status === 'REPLIED', 20_000, 'the reply quoting 550');
    expect((await lead(ids['full@gaps.client.com']!)).status).toBe('CONTACTED');
    expect((await lead(ids['away@gaps.client.com']!)).status).toBe('CONTACTED');
    // The full mailbox is not suppressed; the dead addresses are.
    const other = await campaign(engine.api);
    expect((await engine.api.request('POST', '/v1/leads', { campaignId: other.id, email: 'full@gaps.client.com' })).status).toBe(201);
    expect((await engine.api.request('POST', '/v1/leads', { campaignId: other.id, email: 'gone@gaps.client.com' })).status).toBe(409);
    const replies = (await engine.api.request('GET', `/v1/replies?campaignId=${campaignId}`)).body.replies as { fromEmail: string }[];
    expect(replies.map((r) => r.fromEmail)).toEqual(['dana@gaps.client.com']);
  });

  it('hostile mail (a 3 kB bare-word In-Reply-To, 256 KB of regex bait) does not stop the reading: the reply after it is applied in the same poll; a forged DSN stops only its lead', async () => {
    const box = await readMailbox('hostileco.com', 'hal');
    const { campaignId, ids } = await launchWith(box.id, ['real@client.com', 'forged@client.com']);
    const toReal = await firstTo('real@client.com');
    const toForged = await firstTo('forged@client.com');
    await eventually(async () => (await state(box.id))?.lastPolledAt, 20_000, 'a first read');

    // Appended as a client files mail (nothing on the way checks it), in the order a reader meets them.
    await dovecot.deliver(box.email, hostile.bareWordInReplyTo({ mailbox: box.email, from: 'prankster@elsewhere.com' }), 'INBOX', 'imap');
    await dovecot.deliver(box.email, hostile.regexBait({ mailbox: box.email }), 'INBOX', 'imap');
    // A report naming a lead, returning no email the engine sent: anyone could have written it.
    await dovecot.deliver(
      box.email,
      inbound.postfixBounce({
        mailbox: box.email,
        recipient: 'forged@client.com',
        originalMessageId: 'made-up.1@hostileco.com',
        originalSubject: toForged.subject!,
        status: '5.1.1',
        action: 'failed',
      }),
      'INBOX',
      'imap',
    );
    await dovecot.deliver(
      box.email,
      inbound.reply({
        mailbox: box.email,
        from: 'real@client.com',
        subject: `Re: ${toReal.subject}`,
        body: 'Yes, let us talk.',
        inReplyTo: toReal.messageId,
      }),
      'INBOX',
      'imap',
    );
    await readPast(box.id, 4);

    // Read past all four with no failed read (no back-off), and the reply's effects were applied before the cursor moved past it.
    const after = (await state(box.id))!;
    expect(Number(after.failures ?? 0)).toBe(0);
    expect(after.lastError).toBeUndefined();
    expect((await lead(ids['real@client.com']!)).status).toBe('REPLIED');
    const replies = (await engine.api.request('GET', `/v1/replies?campaignId=${campaignId}`)).body.replies;
    expect(replies.map((r: { fromEmail: string }) => r.fromEmail)).toEqual(['real@client.com']);

    // The forged report stopped the lead it names on this mailbox, and nothing install-wide.
    const forged = await lead(ids['forged@client.com']!);
    expect(forged.status).toBe('BOUNCED');
    expect(forged.bounce).toMatchObject({ status: '5.1.1', hard: true, via: 'report', confirmed: false });
    const days = await engine.deps.store.query({ pk: `BREAKER#${campaignId}#${box.id}` });
    expect(days.items.reduce((n, d) => n + Number(d.bounces ?? 0), 0)).toBe(0);
    const other = await campaign(engine.api);
    expect((await engine.api.request('POST', '/v1/leads', { campaignId: other.id, email: 'forged@client.com' })).status).toBe(201);
  });

  it('a mailbox whose IMAP sign-in is refused shows ERROR with a reason and is not tried again in a loop', async () => {
    const box = await readMailbox('lockedco.com', 'lou');
    await eventually(async () => (await state(box.id))?.lastPolledAt, 20_000, 'a first read');
    await engine.deps.store.update(mailboxKey(box.id), {
      set: { sealedPassword: await sealSecret(engine.deps.keys, 'not-the-password', passwordContext(box.id)) },
    });
    // Due again now.
    await engine.deps.store.update(inboxStateKey(box.id), { set: { nextPollAt: 0 } });
    const row = await eventually(
      async () => {
        const m = (await engine.api.request('GET', '/v1/mailboxes')).body.find((x: { id: string }) => x.id === box.id);
        return m.status === 'ERROR' ? m : undefined;
      },
      20_000,
      'the mailbox to show ERROR',
    );
    expect(row.lastError).toMatch(/IMAP server refused the sign-in/);
    expect(JSON.stringify(row)).not.toContain('not-the-password');
    const failed = await state(box.id);
    expect(failed!.failures).toBe(1);
    // Backed off: several ticks later it has not been tried again (the next try is minutes of engine time away, then longer).
    await new Promise((r) => setTimeout(r, 2500));
    expect((await state(box.id))!.failures).toBe(1);
    expect(Number((await state(box.id))!.retryAfter)).toBeGreaterThan(Date.now() + 50_000);
  });

  it('a reply recorded while a follow-up was being written, before its claim, still stops it', async () => {
    const box = await readMailbox('guardco.com', 'gil');
    const { ids } = await launchWith(box.id, ['eli@client.com']);
    await firstTo('eli@client.com');
    const id = jobId(ids['eli@client.com']!, 1);
    const job = await eventually(async () => getJob(engine.deps, id), 10_000, 'the follow-up planned');
    // Due now and queued (recently, so the dispatcher leaves it to this test's own send).
    await engine.deps.store.update({ pk: job.pk, sk: job.sk }, { set: { state: 'QUEUED', dueAt: 0, queuedAt: Date.now() } });
    // The reply lands in the narrowest window: after this send read the lead, right before its claim.
    const store = engine.deps.store;
    const racing = new Proxy(store, {
      get(target, prop) {
        if (prop === 'transact') {
          return async (ops: Parameters<Store['transact']>[0]) => {
            if (ops.some((op) => 'update' in op && op.change.set?.state === 'CLAIMED')) {
              await transition(engine.deps, leadFromItem((await target.get(leadKey(ids['eli@client.com']!)))!), 'REPLIED');
            }
            await target.transact(ops);
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect(await sendJob({ ...engine.deps, store: racing }, id)).toBe('cancelled');
    expect(await getJob(engine.deps, id)).toMatchObject({
      state: 'CANCELLED',
      reason: 'the lead replied, bounced or was stopped before the send',
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(sentTo('eli@client.com')).toHaveLength(1);
  });
});
