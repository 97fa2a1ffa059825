/**
 * What inbound messages do to leads, on the unit tier: each kind once, however
 * often the same message is read (an overlapping reader, a UIDVALIDITY reset).
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { leadKey } from '../lead/keys.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { getJob } from '../sending/jobs.ts';
import { jobId } from '../sending/keys.ts';
import * as suppression from '../suppression/index.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { applyMessages, MAX_REPORT_RECIPIENTS } from './apply.ts';
import { message, sentTo } from '../testing/inbound-fixtures.ts';
import { listReplies } from './index.ts';

async function applyTwice(deps: UnitDeps, box: { id: unknown }, m: InboundMessage) {
  const mailbox = await mailboxes.get(deps, String(box.id));
  const [first] = await applyMessages(deps, mailbox, [m]);
  const [again] = await applyMessages(deps, mailbox, [m]);
  return [first, again];
}

const dsn = (
  messageIds: Record<string, string>,
  rcpt: string,
  action: string,
  status: string,
  originalId: string | null = messageIds[rcpt] ?? null,
  diagnostic?: string,
) =>
  message({
    from: 'mailer-daemon@mx.sender.com',
    headers: { 'auto-submitted': 'auto-replied' },
    report: {
      type: 'delivery-status',
      fields: `Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; ${rcpt}\nAction: ${action}\nStatus: ${status}\n${diagnostic ? `Diagnostic-Code: smtp; ${diagnostic}\n` : ''}`,
      ...(originalId ? { original: { messageId: originalId, to: [rcpt] } } : {}),
    },
  });
const breakerBounces = async (deps: UnitDeps, campaignId: string, box: { id: unknown }) =>
  (await deps.store.query({ pk: `BREAKER#${campaignId}#${String(box.id)}` })).items.reduce((n, d) => n + Number(d.bounces ?? 0), 0);

describe('applying inbound messages', () => {
  it('a threaded reply: REPLIED, follow-up cancelled, counted and listed once', async () => {
    const deps = unitDeps();
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['ann@client.com']);
    const m = message({ from: 'ann@client.com', inReplyTo: [messageIds['ann@client.com']!] });
    expect(await applyTwice(deps, box, m)).toEqual(['REPLY', 'REPLY']);
    expect((await deps.store.get(leadKey(ids['ann@client.com']!)))!.status).toBe('REPLIED');
    expect((await getJob(deps, jobId(ids['ann@client.com']!, 1)))!.state).toBe('CANCELLED');
    expect((await campaigns.get(deps, campaignId)).repliesCount).toBe(1);
    expect((await listReplies(deps, {})).replies).toHaveLength(1);
  });

  it('a permanent failure in a DSN: BOUNCED, suppressed, one bounce for the breaker however often it is read; a delay changes nothing', async () => {
    const deps = unitDeps();
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['gone@client.com', 'slow@client.com']);
    expect(await applyTwice(deps, box, dsn(messageIds, 'gone@client.com', 'failed', '5.1.1'))).toEqual(['BOUNCE', 'BOUNCE']);
    expect(await applyTwice(deps, box, dsn(messageIds, 'slow@client.com', 'delayed', '4.4.1'))).toEqual(['IGNORED', 'IGNORED']);
    expect((await deps.store.get(leadKey(ids['gone@client.com']!)))!.status).toBe('BOUNCED');
    expect((await deps.store.get(leadKey(ids['slow@client.com']!)))!.status).toBe('CONTACTED');
    expect(await suppression.isSuppressed(deps, 'gone@client.com')).toBe(true);
    expect(await suppression.isSuppressed(deps, 'slow@client.com')).toBe(false);
    expect(await breakerBounces(deps, campaignId, box)).toBe(1);
    expect((await leads.get(deps, ids['gone@client.com']!)).bounce).toMatchObject({
      status: '5.1.1',
      hard: true,
      via: 'report',
      confirmed: true,
    });
  });

  it('a complaint suppresses the address; an auto-reply is recorded and stops nothing; mail from strangers changes nothing', async () => {
    const deps = unitDeps();
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['angry@client.com', 'away@client.com']);
    const arf = message({
      from: 'fbl@provider.example',
      report: {
        type: 'feedback-report',
        fields: 'Feedback-Type: abuse\nOriginal-Rcpt-To: angry@client.com\n',
        original: { messageId: messageIds['angry@client.com'], to: ['angry@client.com'] },
      },
    });
    expect(await applyTwice(deps, box, arf)).toEqual(['COMPLAINT', 'COMPLAINT']);
    expect((await deps.store.get(leadKey(ids['angry@client.com']!)))!.status).toBe('SUPPRESSED');
    expect(await suppression.isSuppressed(deps, 'angry@client.com')).toBe(true);
    const ooo = message({
      from: 'away@client.com',
      inReplyTo: [messageIds['away@client.com']!],
      headers: { 'auto-submitted': 'auto-replied' },
      text: 'Out of the office.',
    });
    expect(await applyTwice(deps, box, ooo)).toEqual(['AUTO_REPLY', 'AUTO_REPLY']);
    expect((await deps.store.get(leadKey(ids['away@client.com']!)))!.status).toBe('CONTACTED');
    expect(await applyTwice(deps, box, message({ from: 'stranger@elsewhere.com' }))).toEqual(['IGNORED', 'IGNORED']);
    expect((await campaigns.get(deps, campaignId)).repliesCount).toBe(0);
  });

  it("a forged report (no returned email of ours, or one sent to someone else) stops only the mailbox's own lead: nothing suppressed, nothing for the breaker", async () => {
    const deps = unitDeps();
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['ann@client.com', 'bob@client.com', 'cy@client.com']);
    // No original at all, then Bob's report carrying Ann's Message-ID.
    expect(await applyTwice(deps, box, dsn(messageIds, 'ann@client.com', 'failed', '5.1.1', null))).toEqual(['BOUNCE', 'BOUNCE']);
    expect(await applyTwice(deps, box, dsn(messageIds, 'bob@client.com', 'failed', '5.1.1', messageIds['ann@client.com']))).toEqual([
      'BOUNCE',
      'BOUNCE',
    ]);
    for (const email of ['ann@client.com', 'bob@client.com']) {
      const lead = await leads.get(deps, ids[email]!);
      expect(lead.status).toBe('BOUNCED');
      expect(lead.bounce).toMatchObject({ hard: true, confirmed: false });
      expect(await suppression.isSuppressed(deps, email)).toBe(false);
      expect((await getJob(deps, jobId(ids[email]!, 1)))!.state).toBe('CANCELLED');
    }
    expect(await breakerBounces(deps, campaignId, box)).toBe(0);
    // The same address in another campaign, never mailed from this mailbox, is untouched.
    const other = await created(campaigns.create, deps, {
      name: 'D',
      aiPromptTemplate: 'x',
      subject: 'S',
      template: 'T',
      mailboxIds: [String(box.id)],
    });
    expect((await created(leads.create, deps, { campaignId: other.id, email: 'ann@client.com' })).status).toBe('NEW');
    // A forged complaint ends only that lead's sequence too.
    const arf = message({
      from: 'fbl@provider.example',
      report: { type: 'feedback-report', fields: 'Feedback-Type: abuse\nOriginal-Rcpt-To: cy@client.com\n' },
    });
    expect(await applyTwice(deps, box, arf)).toEqual(['COMPLAINT', 'COMPLAINT']);
    expect((await leads.get(deps, ids['cy@client.com']!)).status).toBe('SUPPRESSED');
    expect(await suppression.isSuppressed(deps, 'cy@client.com')).toBe(false);
  });

  it('a soft bounce is noted on the lead and stops nothing; a report naming more recipients than an email has reads only the first few', async () => {
    const deps = unitDeps();
    const emails = Array.from({ length: MAX_REPORT_RECIPIENTS + 3 }, (_, i) => `p${i}@client.com`);
    const { box, campaignId, ids, messageIds } = await sentTo(deps, ['full@client.com', ...emails]);
    const soft = message({
      from: 'mailer-daemon@mx.sender.com',
      report: {
        type: 'delivery-status',
        fields: 'Final-Recipient: rfc822; full@client.com\nAction: failed\nStatus: 5.2.2\n',
        original: { messageId: messageIds['full@client.com'], to: ['full@client.com'] },
      },
    });
    const mailbox = await mailboxes.get(deps, String(box.id));
    const c = {
      kind: 'BOUNCE' as const,
      originalMessageId: messageIds['full@client.com'],
      recipients: [
        {
          recipient: 'full@client.com',
          action: 'failed',
          status: '5.2.2',
          diagnostic: '552 5.2.2 Mailbox full',
          reason: 'mailbox-full' as const,
          hard: false,
        },
      ],
    };
    const { applyMessage } = await import('./apply.ts');
    const refs = new Map([
      [
        messageIds['full@client.com']!.toLowerCase(),
        { jobId: jobId(ids['full@client.com']!, 0), leadId: ids['full@client.com']!, campaignId, mailboxId: String(box.id) },
      ],
    ]);
    expect(await applyMessage(deps, mailbox, soft, c, refs)).toBe('BOUNCE');
    const full = await leads.get(deps, ids['full@client.com']!);
    expect(full.status).toBe('CONTACTED');
    expect(full.bounce).toMatchObject({ status: '5.2.2', reason: 'mailbox-full', hard: false, confirmed: true });
    expect(await suppression.isSuppressed(deps, 'full@client.com')).toBe(false);
    expect((await getJob(deps, jobId(ids['full@client.com']!, 1)))!.state).toBe('SCHEDULED');
    expect(await breakerBounces(deps, campaignId, box)).toBe(0);

    const fields = emails.map((e) => `Final-Recipient: rfc822; ${e}\nAction: failed\nStatus: 5.1.1\n`).join('\n');
    expect(
      await applyTwice(deps, box, message({ from: 'mailer-daemon@mx.sender.com', report: { type: 'delivery-status', fields } })),
    ).toEqual(['BOUNCE', 'BOUNCE']);
    const bounced = (await Promise.all(emails.map((e) => leads.get(deps, ids[e]!)))).filter((l) => l.status === 'BOUNCED');
    expect(bounced).toHaveLength(MAX_REPORT_RECIPIENTS);
  });

  it('one message that cannot be read or applied is skipped, and the reply after it still stops its lead', async () => {
    const deps = unitDeps();
    const { box, ids, messageIds } = await sentTo(deps, ['ann@client.com', 'bob@client.com']);
    const mailbox = await mailboxes.get(deps, String(box.id));
    // A 3 kB "Message-ID" of bare words: as a SENTMSG# key it is over the table's 2,048 bytes, and one such key refuses the whole batch read.
    const words = Array.from({ length: 600 }, (_, i) => `word${i}`).join(' ');
    const hostile = message({ from: 'x@evil.example', inReplyTo: [words], references: [words] });
    const reply = message({ from: 'ann@client.com', inReplyTo: [messageIds['ann@client.com']!] });
    expect(await applyMessages(deps, mailbox, [hostile, reply])).toEqual(['IGNORED', 'REPLY']);
    expect((await leads.get(deps, ids['ann@client.com']!)).status).toBe('REPLIED');
    // A message whose effects the store refuses (twice) is skipped; the next one is applied.
    const failing = message({ from: 'bob@client.com', inReplyTo: [messageIds['bob@client.com']!] });
    const store = deps.store;
    let refusals = 0;
    const refusing = new Proxy(store, {
      get(target, prop) {
        if (prop === 'put') {
          return async (...args: Parameters<typeof store.put>) => {
            if (args[0].fromEmail === 'bob@client.com') {
              refusals++;
              throw new Error('the store refused');
            }
            return target.put(...args);
          };
        }
        // A reply's record goes in one transaction with its conversation copy.
        if (prop === 'transact') {
          return async (...args: Parameters<typeof store.transact>) => {
            if (args[0].some((op) => 'put' in op && op.put.fromEmail === 'bob@client.com')) {
              refusals++;
              throw new Error('the store refused');
            }
            return target.transact(...args);
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const later = message({ from: 'ann@client.com', inReplyTo: [messageIds['ann@client.com']!], messageId: 'second@client.com' });
    expect(await applyMessages({ ...deps, store: refusing }, mailbox, [failing, later])).toEqual(['SKIPPED', 'REPLY']);
    expect(refusals).toBe(2);
    expect((await leads.get(deps, ids['bob@client.com']!)).status).toBe('CONTACTED');
  });

  it("erasing an address reaches what it wrote in another lead's thread (a colleague answering)", async () => {
    const deps = unitDeps();
    const { box, campaignId, messageIds } = await sentTo(deps, ['ann@client.com']);
    const colleague = message({
      from: 'cat@client.com',
      subject: 'Re: Hi Ann',
      text: 'Ann left; I run this now. Call me at 555-0101.',
      inReplyTo: [messageIds['ann@client.com']!],
    });
    expect(await applyTwice(deps, box, colleague)).toEqual(['REPLY', 'REPLY']);
    expect((await listReplies(deps, { campaignId })).replies[0]).toMatchObject({ fromEmail: 'cat@client.com', subject: 'Re: Hi Ann' });
    await leads.erase(deps, { email: 'cat@client.com' });
    const r = (await listReplies(deps, { campaignId })).replies[0]!;
    expect(r).toMatchObject({ subject: '', snippet: '' });
    expect(JSON.stringify(r)).not.toContain('cat@client.com');
    const everything = JSON.stringify(await deps.store.query({ index: 'gsi3', pk: `LEAD#${r.leadId}#INBOUND` }));
    expect(everything).not.toContain('cat@client.com');
    expect(everything).not.toContain('555-0101');
  });
});
