/**
 * The lead facts on the unit tier: each verb makes its change once and says
 * whether it was new; both kinds of bounce follow the one breaker rule.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import * as domains from '../domain/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { pairFromItem } from '../guardrails/breaker.entity.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { ConditionFailedError } from '../errors.ts';
import { getJob, move } from '../sending/jobs.ts';
import { campaignStepOf } from '../sending/job.entity.ts';
import { jobId } from '../sending/keys.ts';
import * as suppression from '../suppression/index.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import * as leads from './index.ts';
import { leadKey } from './keys.ts';
import { fromItem, LEAD_STATUSES, type Lead } from './entity.ts';
import { bounced, complained, replied, sent, stopEverywhere, suppressAddress, unsubscribed } from './facts.ts';
import { FINAL, SENDABLE, sendableIf } from './sequence.ts';

const DAY = 86_400_000;

/** A launched campaign (a first email and one follow-up 3 days later) from two mailboxes, with these leads. */
async function launched(deps: UnitDeps, emails: string[], name = 'C') {
  const domain = await created(domains.create, deps, { domainName: `${name.toLowerCase()}.sender.com`, mailingAddress: '1 Main St' });
  const boxes = [];
  for (const local of ['a', 'b']) {
    boxes.push(
      await created(mailboxes.create, deps, {
        email: `${local}@${name.toLowerCase()}.sender.com`,
        domainId: domain.id,
        smtpHost: 'smtp.mail.test',
        authPassword: 'pw',
      }),
    );
  }
  const mailboxIds = boxes.map((b) => String(b.id));
  const c = await created(campaigns.create, deps, {
    name,
    aiPromptTemplate: 'x',
    subject: 'Hi',
    template: 'Hello.',
    mailboxIds,
    steps: [{ waitDays: 3, body: 'Bump.' }],
  });
  const ids: string[] = [];
  for (const email of emails) ids.push(String((await created(leads.create, deps, { campaignId: c.id, email, firstName: 'F' })).id));
  await campaigns.launch(deps, String(c.id));
  return { campaignId: String(c.id), mailboxIds, ids };
}

const lead = async (deps: UnitDeps, id: string): Promise<Lead> => fromItem((await deps.store.get(leadKey(id)))!);
const campaignRow = async (deps: UnitDeps, id: string) => (await deps.store.get(campaignKey(id)))!;
/** The pair's sends and bounces over every day and epoch. */
async function pairCounts(deps: UnitDeps, campaignId: string, mailboxId: string) {
  const days = (await deps.store.query({ pk: pairKey(campaignId, mailboxId).pk })).items.filter(
    (i) => i.sk !== pairKey(campaignId, mailboxId).sk,
  );
  return { sends: days.reduce((n, d) => n + Number(d.sends ?? 0), 0), bounces: days.reduce((n, d) => n + Number(d.bounces ?? 0), 0) };
}

/** The first step of a lead recorded as sent from a mailbox, the way the send path records it. */
async function sendFirst(deps: UnitDeps, campaignId: string, leadId: string, mailboxId: string, messageId = `<${leadId}@sender.com>`) {
  const job = campaignStepOf((await getJob(deps, jobId(leadId, 0)))!);
  const campaign = await campaigns.getItem(deps, campaignId);
  const mailbox = await mailboxes.get(deps, mailboxId);
  const pair = pairFromItem(await deps.store.get(pairKey(campaignId, mailboxId)));
  return sent(deps, { job, campaign, lead: await lead(deps, leadId), mailbox, subject: 'Hi', messageId, aiGenerated: false, pair });
}

const hardBounce = (at: string, confirmed = true) => ({ status: '5.1.1', reason: 'user-unknown', hard: true, confirmed, at });

describe('lead facts', () => {
  it('sent: the lead moves by the status rules, the campaign and the pair count it, the follow-up is planned; recorded once', async () => {
    const deps = unitDeps();
    const { campaignId, mailboxIds, ids } = await launched(deps, ['ann@client.com']);
    const [id] = ids as [string];
    expect(await sendFirst(deps, campaignId, id, mailboxIds[1]!)).toBe(true);
    const row = await lead(deps, id);
    expect(row).toMatchObject({ status: 'CONTACTED', mailboxId: mailboxIds[1], stepsSent: 1 });
    expect(row.thread?.messageIds).toEqual([`<${id}@sender.com>`]);
    const c = await campaignRow(deps, campaignId);
    expect(c[counter.sent]).toBe(1);
    expect(c[counter.status('NEW')]).toBe(0);
    expect(c[counter.status('CONTACTED')]).toBe(1);
    expect(await pairCounts(deps, campaignId, mailboxIds[1]!)).toEqual({ sends: 1, bounces: 0 });
    const next = await getJob(deps, jobId(id, 1));
    expect(next).toMatchObject({ state: 'SCHEDULED', mailboxId: mailboxIds[1] });
    expect(next!.dueAt).toBe(deps.clock.now() + 3 * DAY);

    // The same record again (a retry whose first answer was lost): nothing counts twice.
    expect(await sendFirst(deps, campaignId, id, mailboxIds[1]!)).toBe(false);
    expect((await campaignRow(deps, campaignId))[counter.sent]).toBe(1);
    expect(await pairCounts(deps, campaignId, mailboxIds[1]!)).toEqual({ sends: 1, bounces: 0 });
  });

  it('sent: a lead that replied since the claim keeps its status and gets no follow-up, and the send still counts', async () => {
    const deps = unitDeps();
    const { campaignId, mailboxIds, ids } = await launched(deps, ['bob@client.com']);
    const [id] = ids as [string];
    // Claimed and on its way: a reply does not cancel it.
    expect(await move(deps, (await getJob(deps, jobId(id, 0)))!, 'CLAIMED', { wallNow: deps.wallClock.now() })).toBe(true);
    const job = campaignStepOf((await getJob(deps, jobId(id, 0)))!);
    const before = await lead(deps, id);
    expect(await replied(deps, before, deps.clock.now())).toBe(true);
    const pair = pairFromItem(undefined);
    const campaign = await campaigns.getItem(deps, campaignId);
    const mailbox = await mailboxes.get(deps, mailboxIds[0]!);
    // The claim read the lead NEW; the record finds it REPLIED.
    expect(await sent(deps, { job, campaign, lead: before, mailbox, subject: 'Hi', messageId: '<m@x>', aiGenerated: false, pair })).toBe(
      true,
    );
    expect((await lead(deps, id)).status).toBe('REPLIED');
    expect((await campaignRow(deps, campaignId))[counter.sent]).toBe(1);
    expect((await campaignRow(deps, campaignId))[counter.status('REPLIED')]).toBe(1);
    expect(await getJob(deps, jobId(id, 1))).toBeUndefined();
    expect((await getJob(deps, jobId(id, 0)))!.state).toBe('SENT');
  });

  it('bounced at SMTP time: the lead, the list and the pair it went from, in one move counted once', async () => {
    const deps = unitDeps();
    const { campaignId, mailboxIds, ids } = await launched(deps, ['gone@client.com']);
    const [id] = ids as [string];
    const at = new Date(deps.clock.now()).toISOString();
    const fact = { source: 'smtp' as const, sentFrom: mailboxIds[1]!, note: hardBounce(at) };
    expect(await bounced(deps, await lead(deps, id), fact)).toBe(true);
    expect(await lead(deps, id)).toMatchObject({ status: 'BOUNCED', bounce: { via: 'smtp', confirmed: true, reason: 'user-unknown' } });
    expect(await suppression.isSuppressed(deps, 'gone@client.com')).toBe(true);
    // No send record counted this send: the bounce counts it, on the pair it went from.
    expect(await pairCounts(deps, campaignId, mailboxIds[1]!)).toEqual({ sends: 1, bounces: 1 });
    expect(await pairCounts(deps, campaignId, mailboxIds[0]!)).toEqual({ sends: 0, bounces: 0 });
    expect(deps.metrics.counts.Bounces).toBe(1);

    expect(await bounced(deps, await lead(deps, id), fact)).toBe(false);
    expect(await pairCounts(deps, campaignId, mailboxIds[1]!)).toEqual({ sends: 1, bounces: 1 });
    expect(deps.metrics.counts.Bounces).toBe(1);
  });

  it('bounced by a confirmed report: counted on the pair the email went from, not the mailbox the report came to; read twice, counted once', async () => {
    const deps = unitDeps();
    const { campaignId, mailboxIds, ids } = await launched(deps, ['dead@client.com', 'other@client.com']);
    const [id, other] = ids as [string, string];
    await sendFirst(deps, campaignId, id, mailboxIds[1]!);
    await sendFirst(deps, campaignId, other, mailboxIds[1]!);
    const fact = { source: 'report' as const, sentFrom: mailboxIds[1]!, note: hardBounce(new Date(deps.clock.now()).toISOString()) };
    expect(await bounced(deps, await lead(deps, id), fact)).toBe(true);
    expect(await bounced(deps, await lead(deps, id), fact)).toBe(false);
    expect(await pairCounts(deps, campaignId, mailboxIds[1]!)).toEqual({ sends: 2, bounces: 1 });
    expect(pairFromItem(await deps.store.get(pairKey(campaignId, mailboxIds[1]!))).lastBounceAt).toBe(deps.clock.now());
    expect(await lead(deps, id)).toMatchObject({ status: 'BOUNCED', bounce: { via: 'report', confirmed: true } });
    expect(await suppression.isSuppressed(deps, 'dead@client.com')).toBe(true);
    expect((await lead(deps, other)).status).toBe('CONTACTED');
    // The follow-up planned by the send is cancelled.
    expect((await getJob(deps, jobId(id, 1)))!.state).toBe('CANCELLED');
  });

  it('bounced by an unconfirmed report: only this lead stops; nothing is suppressed or counted', async () => {
    const deps = unitDeps();
    const { campaignId, mailboxIds, ids } = await launched(deps, ['maybe@client.com']);
    const [id] = ids as [string];
    const fact = { source: 'report' as const, sentFrom: mailboxIds[0]!, note: hardBounce(new Date(deps.clock.now()).toISOString(), false) };
    expect(await bounced(deps, await lead(deps, id), fact)).toBe(true);
    expect((await lead(deps, id)).status).toBe('BOUNCED');
    expect(await suppression.isSuppressed(deps, 'maybe@client.com')).toBe(false);
    expect(await pairCounts(deps, campaignId, mailboxIds[0]!)).toEqual({ sends: 0, bounces: 0 });
    expect(deps.metrics.counts.UnconfirmedReports).toBe(1);
    expect(await bounced(deps, await lead(deps, id), fact)).toBe(false);
    expect(deps.metrics.counts.UnconfirmedReports).toBe(1);
  });

  it('a bounce that finds the lead stopped already still lists the address, and counts nothing', async () => {
    const deps = unitDeps();
    const { campaignId, mailboxIds, ids } = await launched(deps, ['late@client.com']);
    const [id] = ids as [string];
    await replied(deps, await lead(deps, id), deps.clock.now());
    const fact = { source: 'report' as const, sentFrom: mailboxIds[0]!, note: hardBounce(new Date(deps.clock.now()).toISOString()) };
    expect(await bounced(deps, await lead(deps, id), fact)).toBe(false);
    expect(await suppression.isSuppressed(deps, 'late@client.com')).toBe(true);
    expect((await lead(deps, id)).status).toBe('REPLIED');
    expect(await pairCounts(deps, campaignId, mailboxIds[0]!)).toEqual({ sends: 0, bounces: 0 });
  });

  it('replied: the lead, the campaign count and the open jobs, once', async () => {
    const deps = unitDeps();
    const { campaignId, ids } = await launched(deps, ['yes@client.com']);
    const [id] = ids as [string];
    expect(await replied(deps, await lead(deps, id), Date.UTC(2026, 2, 2))).toBe(true);
    expect(await replied(deps, await lead(deps, id), Date.UTC(2026, 2, 3))).toBe(false);
    expect(await lead(deps, id)).toMatchObject({ status: 'REPLIED', repliedAt: '2026-03-02T00:00:00.000Z' });
    expect((await campaignRow(deps, campaignId))[counter.replies]).toBe(1);
    expect((await getJob(deps, jobId(id, 0)))!.state).toBe('CANCELLED');
    expect(deps.metrics.counts.Replies).toBe(1);
  });

  it('suppressAddress: the list first, then every campaign row of the address; except keeps one row', async () => {
    const deps = unitDeps();
    const one = await launched(deps, ['x@client.com', 'keep@client.com'], 'One');
    const two = await launched(deps, ['x@client.com'], 'Two');
    expect(await suppressAddress(deps, 'X@client.com', 'manual')).toBe(true);
    expect((await lead(deps, one.ids[0]!)).status).toBe('SUPPRESSED');
    expect((await lead(deps, two.ids[0]!)).status).toBe('SUPPRESSED');
    expect((await lead(deps, one.ids[1]!)).status).toBe('NEW');
    expect(await suppression.isSuppressed(deps, 'x@client.com')).toBe(true);
    expect(await suppressAddress(deps, 'x@client.com', 'manual')).toBe(false);

    expect(await suppressAddress(deps, 'keep@client.com', 'bounce', one.ids[1])).toBe(false);
    expect((await lead(deps, one.ids[1]!)).status).toBe('NEW');
    expect(await suppression.isSuppressed(deps, 'keep@client.com')).toBe(true);
  });

  it('stopEverywhere stops the rows without touching the list', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['stop@client.com']);
    expect(await stopEverywhere(deps, 'stop@client.com')).toBe(true);
    expect((await lead(deps, ids[0]!)).status).toBe('SUPPRESSED');
    expect(await suppression.isSuppressed(deps, 'stop@client.com')).toBe(false);
  });

  it('complained: confirmed suppresses the address everywhere; unconfirmed ends this lead only', async () => {
    const deps = unitDeps();
    const one = await launched(deps, ['sure@client.com', 'unsure@client.com'], 'One');
    const two = await launched(deps, ['sure@client.com', 'unsure@client.com'], 'Two');
    expect(await complained(deps, await lead(deps, one.ids[0]!), true)).toBe(true);
    expect((await lead(deps, two.ids[0]!)).status).toBe('SUPPRESSED');
    expect(await suppression.isSuppressed(deps, 'sure@client.com')).toBe(true);

    expect(await complained(deps, await lead(deps, one.ids[1]!), false)).toBe(true);
    expect(await lead(deps, one.ids[1]!)).toMatchObject({ status: 'SUPPRESSED', endedBy: 'COMPLAINT' });
    expect((await lead(deps, two.ids[1]!)).status).toBe('NEW');
    expect(await suppression.isSuppressed(deps, 'unsure@client.com')).toBe(false);
    expect(await complained(deps, await lead(deps, one.ids[1]!), false)).toBe(false);
    expect(deps.metrics.counts.UnconfirmedReports).toBe(1);
  });

  it('unsubscribed: by address, or by the hash a deleted lead left', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['bye@client.com']);
    expect(await unsubscribed(deps, { email: 'bye@client.com' })).toBe(true);
    expect((await lead(deps, ids[0]!)).status).toBe('SUPPRESSED');
    const hash = await suppression.addressHash(deps, 'gone@client.com');
    expect(await unsubscribed(deps, { addressHash: hash })).toBe(false);
    expect(await suppression.isSuppressed(deps, 'gone@client.com')).toBe(true);
  });

  it('"can still be sent to" is one rule: the set, the store condition and FINAL agree for every status', async () => {
    expect([...SENDABLE].sort()).toEqual(['CONTACTED', 'NEW']);
    const deps = unitDeps();
    const key = { pk: 'T#1', sk: 'T' };
    for (const status of LEAD_STATUSES) {
      for (const erased of [false, true]) {
        await deps.store.put({ ...key, status, ...(erased ? { erased: true } : {}) });
        const held = await deps.store.transact([{ check: key, if: sendableIf() }]).then(
          () => true,
          (err) => {
            if (err instanceof ConditionFailedError) return false;
            throw err;
          },
        );
        expect(held, `${status}${erased ? ' erased' : ''}`).toBe(SENDABLE.has(status) && !erased);
      }
      expect(FINAL.has(status)).toBe(!SENDABLE.has(status));
    }
  });
});
