/**
 * Finding out whether a server files sent mail, on the unit tier with a
 * scripted reader (the lookup in a real Sent folder runs against Dovecot in
 * test/e2e/sent-folder.test.ts).
 */
import { describe, expect, it } from 'vitest';
import * as domains from '../domain/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { filesSentMail, fromItem as mailboxFromItem, type Mailbox } from '../mailbox/entity.ts';
import { leadKey, pinIndex } from '../lead/keys.ts';
import type { MailReader } from '../ports/mail-reader.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { campaignStep, SENT_ABSENT_CONFIRM_MS } from '../sending/campaign-send.ts';
import { fromItem as jobFromItem } from '../sending/job.entity.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { FILING_DELAY_MS, findOutSentFiling, RECHECK_MS } from './sent-filing.ts';

const login = { host: 'imap.example.com', port: 993, user: 'm@sender.com', pass: 'pw' };

function reader(answer: () => Promise<boolean>) {
  const asked: string[] = [];
  const r: MailReader = {
    readInbox: async () => ({ uidValidity: 1, lastUid: 0, messages: [], more: false }),
    sentContains: async (_login, messageId) => {
      asked.push(messageId);
      return answer();
    },
    spamFolder: async () => undefined,
    placementOf: async () => 'MISSING',
  };
  return { r, asked };
}

async function mailboxWithSend(deps: UnitDeps, job: { smtpStartedAt: number; unconfirmed?: boolean }): Promise<Mailbox> {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
  const box = await created(mailboxes.create, deps, {
    email: 'm@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
  });
  await deps.store.update(mailboxKey(box.id), { set: { imapHost: 'imap.example.com' } });
  await deps.store.put({
    ...leadKey('L1'),
    id: 'L1',
    campaignId: 'C1',
    email: 'x@client.com',
    status: 'CONTACTED',
    stepsSent: 1,
    mailboxId: box.id,
    ...pinIndex(box.id, 'L1'),
  });
  await deps.store.put({
    ...jobKey(jobId('L1', 0)),
    id: jobId('L1', 0),
    state: 'SENT',
    dueAt: 0,
    mailboxId: box.id,
    messageId: '<m1@sender.com>',
    ...job,
  });
  return mailboxFromItem((await deps.store.get(mailboxKey(box.id)))!);
}

describe('finding out whether a server files sent mail', () => {
  it('looks up an accepted email a minute old, writes the answer, and the Sent folder then settles unknown outcomes', async () => {
    const { r, asked } = reader(async () => true);
    const deps = unitDeps({ mailReader: r });
    const wall = deps.wallClock.now();
    const box = await mailboxWithSend(deps, { smtpStartedAt: wall - FILING_DELAY_MS });
    expect(filesSentMail(box)).toBe(false);
    expect(await findOutSentFiling(deps, box, login)).toBe(true);
    expect(asked).toEqual(['<m1@sender.com>']);
    const after = mailboxFromItem((await deps.store.get(mailboxKey(box.id)))!);
    expect(after.sentFiling).toEqual({ files: true, checkedAt: new Date(wall).toISOString() });
    expect(filesSentMail(after)).toBe(true);
    // Known now: not asked again within the day.
    expect(await findOutSentFiling(deps, after, login)).toBeUndefined();
    expect(asked).toHaveLength(1);
  });

  it('writes "does not file" when the email is absent, and looks again a day later', async () => {
    let files = false;
    const { r, asked } = reader(async () => files);
    const deps = unitDeps({ mailReader: r });
    const box = await mailboxWithSend(deps, { smtpStartedAt: deps.wallClock.now() - FILING_DELAY_MS });
    expect(await findOutSentFiling(deps, box, login)).toBe(false);
    const after = mailboxFromItem((await deps.store.get(mailboxKey(box.id)))!);
    expect(after.sentFiling?.files).toBe(false);
    expect(filesSentMail(after)).toBe(false);
    files = true;
    const dayOn = { ...deps, wallClock: { now: () => deps.wallClock.now() + RECHECK_MS + 1 } };
    expect(await findOutSentFiling(dayOn, after, login)).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it('asks nothing for a send too recent or only taken as sent, and writes nothing when the folder cannot be read', async () => {
    const recent = reader(async () => true);
    const deps = unitDeps({ mailReader: recent.r });
    const box = await mailboxWithSend(deps, { smtpStartedAt: deps.wallClock.now() - 1000 });
    expect(await findOutSentFiling(deps, box, login)).toBeUndefined();
    await deps.store.update(jobKey(jobId('L1', 0)), { set: { smtpStartedAt: 0, unconfirmed: true } });
    expect(await findOutSentFiling(deps, box, login)).toBeUndefined();
    expect(recent.asked).toEqual([]);

    const broken = reader(async () => {
      throw new Error('the mailbox has no Sent folder');
    });
    const other = unitDeps({ mailReader: broken.r });
    const box2 = await mailboxWithSend(other, { smtpStartedAt: 0 });
    await expect(findOutSentFiling(other, box2, login)).rejects.toThrow('no Sent folder');
    expect((await other.store.get(mailboxKey(box2.id)))!.sentFiling).toBeUndefined();
  });
});

describe('settling an unknown outcome by the Sent folder', () => {
  it('does not call a send absent from Sent until it is a minute old: it is looked at again, never sent twice too soon', async () => {
    const { r, asked } = reader(async () => false);
    const deps = unitDeps({ mailReader: r });
    const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
    const box = await created(mailboxes.create, deps, {
      email: 'g@sender.com',
      domainId: domain.id,
      provider: 'GOOGLE',
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
    });
    await deps.store.update(mailboxKey(box.id), { set: { imapHost: 'imap.example.com' } });
    const wall = deps.wallClock.now();
    const claimed = {
      id: jobId('L9', 0),
      state: 'CLAIMED',
      dueAt: 0,
      mailboxId: box.id,
      messageId: '<m9@sender.com>',
      leadId: 'L9',
      campaignId: 'C9',
      step: 0,
    };
    await deps.store.put({ ...jobKey(claimed.id), ...claimed, smtpStartedAt: wall - 1_000 });
    // A second after the send (a local start settles every claim at once): absent says nothing yet.
    expect(await campaignStep.settleUnknown!(deps, jobFromItem((await deps.store.get(jobKey(claimed.id)))!))).toBe(false);
    expect(asked).toEqual(['<m9@sender.com>']);
    expect((await deps.store.get(jobKey(claimed.id)))!.state).toBe('CLAIMED');
    // A minute on, absent is a first miss: noted, and asked again later.
    await deps.store.update(jobKey(claimed.id), { set: { smtpStartedAt: wall - FILING_DELAY_MS } });
    const settle = async () => campaignStep.settleUnknown!(deps, jobFromItem((await deps.store.get(jobKey(claimed.id)))!));
    expect(await settle()).toBe(false);
    expect((await deps.store.get(jobKey(claimed.id)))!.state).toBe('CLAIMED');
    // Absent again five minutes of engine time on: it never went, scheduled again.
    deps.clock.advance(SENT_ABSENT_CONFIRM_MS);
    expect(await settle()).toBe(true);
    expect((await deps.store.get(jobKey(claimed.id)))!).toMatchObject({ state: 'SCHEDULED' });
    expect((await deps.store.get(jobKey(claimed.id)))!.sentMissingAt).toBeUndefined();
  });

  it('sends again only after two misses at least five minutes of engine time apart: a search index that lags finds it on the second look', async () => {
    let filed = false;
    const { r, asked } = reader(async () => filed);
    const deps = unitDeps({ mailReader: r });
    const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
    const box = await created(mailboxes.create, deps, {
      email: 'g@sender.com',
      domainId: domain.id,
      provider: 'MICROSOFT',
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
    });
    await deps.store.update(mailboxKey(box.id), { set: { imapHost: 'imap.example.com' } });
    const claimed = {
      id: jobId('L8', 0),
      state: 'CLAIMED',
      dueAt: 0,
      mailboxId: box.id,
      messageId: '<m8@sender.com>',
      leadId: 'L8',
      campaignId: 'C8',
      step: 0,
    };
    await deps.store.put({ ...jobKey(claimed.id), ...claimed, smtpStartedAt: deps.wallClock.now() - FILING_DELAY_MS });
    await deps.store.put({ ...leadKey('L8'), id: 'L8', campaignId: 'C8', email: 'x@client.com', status: 'CONTACTED' });
    const settle = async () => campaignStep.settleUnknown!(deps, jobFromItem((await deps.store.get(jobKey(claimed.id)))!));
    expect(await settle()).toBe(false);
    // Asked again sooner than five minutes on (the next dispatcher tick): a second miss that soon proves nothing.
    deps.clock.advance(SENT_ABSENT_CONFIRM_MS - 1000);
    expect(await settle()).toBe(false);
    expect((await deps.store.get(jobKey(claimed.id)))!.state).toBe('CLAIMED');
    // The index caught up: the email went after all, and is recorded as sent, never sent twice.
    filed = true;
    deps.clock.advance(1000);
    expect(await settle()).toBe(true);
    expect((await deps.store.get(jobKey(claimed.id)))!.state).toBe('SENT');
    expect(asked).toHaveLength(3);
  });
});
