/**
 * One event per fact, on the unit tier: the facts' own writes carry their
 * events, and a fact recorded again (a message read twice) makes none more.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import * as queue from '../queue/index.ts';
import { applyMessages } from '../inbound/apply.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import type { IndexQuery } from '../ports/store.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import * as webhooks from './index.ts';
import { deliveryKey } from './keys.ts';
import { EVENT_DATA } from './webhooks.view.ts';

async function setup() {
  const deps = unitDeps();
  const hook = await webhooks.create(deps, { url: 'https://hooks.example.com/in', events: ['*'] });
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
    subject: 'Hi',
    template: 'Hello.',
    mailboxIds: [String(box.id)],
    steps: [{ waitDays: 3, body: 'Bump.' }],
  });
  const ids: Record<string, string> = {};
  const messageIds: Record<string, string> = {};
  for (const email of ['ann@client.com', 'gone@client.com']) {
    ids[email] = String((await created(leads.create, deps, { campaignId: c.id, email, firstName: 'F' })).id);
  }
  await campaigns.launch(deps, String(c.id));
  for (const email of Object.keys(ids)) {
    const id = jobId(ids[email]!, 0);
    await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    expect(await sendJob(deps, id)).toBe('sent');
    messageIds[email] = deps.mailer.sent.at(-1)!.email.messageId;
    deps.clock.advance(11 * 60_000);
  }
  return { deps, hook, box, campaignId: String(c.id), ids, messageIds };
}

const owed = async (deps: UnitDeps, hookId: string) => (await webhooks.deliveries(deps, hookId)).deliveries;
const bodyOf = async (deps: UnitDeps, hookId: string, eventId: string) =>
  JSON.parse(String((await deps.store.get(deliveryKey(hookId, eventId)))!.body));

const message = (over: Partial<InboundMessage>): InboundMessage => ({
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

describe('events of facts', () => {
  it('two emails give two email.sent; a reply and a hard bounce read twice give one event each; a delay gives none', async () => {
    const { deps, hook, box, campaignId, ids, messageIds } = await setup();
    const sent = (await owed(deps, hook.id)).filter((d) => d.type === 'email.sent');
    expect(sent).toHaveLength(2);
    const first = await bodyOf(deps, hook.id, sent.at(-1)!.eventId);
    expect(first.data).toMatchObject({
      leadId: ids['ann@client.com'],
      campaignId,
      mailboxId: String(box.id),
      step: 0,
      messageId: messageIds['ann@client.com'],
    });

    const mailbox = await mailboxes.get(deps, String(box.id));
    const reply = message({ from: 'ann@client.com', inReplyTo: [messageIds['ann@client.com']!], text: 'Yes, let us talk.' });
    const gone = message({
      from: 'mailer-daemon@mx.sender.com',
      headers: { 'auto-submitted': 'auto-replied' },
      report: {
        type: 'delivery-status',
        fields:
          'Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; gone@client.com\nAction: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 no such user\n',
        original: { messageId: messageIds['gone@client.com']!, to: ['gone@client.com'] },
      },
    });
    const slow = message({
      from: 'mailer-daemon@mx.sender.com',
      headers: { 'auto-submitted': 'auto-replied' },
      report: {
        type: 'delivery-status',
        fields: 'Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; ann@client.com\nAction: delayed\nStatus: 4.4.1\n',
        original: { messageId: messageIds['ann@client.com']!, to: ['ann@client.com'] },
      },
    });
    for (let i = 0; i < 2; i++) await applyMessages(deps, mailbox, [reply, gone, slow]);

    const types = (await owed(deps, hook.id)).map((d) => d.type).sort();
    expect(types).toEqual(['email.bounced', 'email.sent', 'email.sent', 'reply.received']);
    const all = await owed(deps, hook.id);
    const replied = await bodyOf(deps, hook.id, all.find((d) => d.type === 'reply.received')!.eventId);
    expect(replied.data).toMatchObject({
      leadId: ids['ann@client.com'],
      campaignId,
      mailboxId: String(box.id),
      fromEmail: 'ann@client.com',
      subject: 'Re: Hi',
      snippet: expect.stringContaining('Yes, let us talk.'),
    });
    const bounced = await bodyOf(deps, hook.id, all.find((d) => d.type === 'email.bounced')!.eventId);
    expect(bounced.data).toMatchObject({ leadId: ids['gone@client.com'], campaignId, email: 'gone@client.com', status: '5.1.1' });

    // A second answer from the same lead is a new reply, and a new event (read twice, still one more).
    const again = message({ from: 'ann@client.com', inReplyTo: [messageIds['ann@client.com']!], text: 'Tuesday works.' });
    for (let i = 0; i < 2; i++) await applyMessages(deps, mailbox, [again]);
    const replies = (await owed(deps, hook.id)).filter((d) => d.type === 'reply.received');
    expect(replies).toHaveLength(2);
    const snippets = await Promise.all(replies.map(async (d) => (await bodyOf(deps, hook.id, d.eventId)).data.snippet));
    expect(snippets.some((t: string) => t.includes('Tuesday works.'))).toBe(true);
  });

  it('erasing a lead empties its events: an owed one is not sent, a delivered one keeps its place without the address', async () => {
    const { deps, hook, box, ids, messageIds } = await setup();
    const mailbox = await mailboxes.get(deps, String(box.id));
    await applyMessages(deps, mailbox, [
      message({ from: 'ann@client.com', inReplyTo: [messageIds['ann@client.com']!], text: 'Call me on 555 0100.' }),
    ]);
    const annEvents = async () => {
      const out = [];
      for (const d of await owed(deps, hook.id)) {
        const item = (await deps.store.get(deliveryKey(hook.id, d.eventId)))!;
        if (JSON.parse(String(item.body)).data.leadId === ids['ann@client.com']) out.push(item);
      }
      return out;
    };
    const before = await annEvents();
    expect(before.map((i) => i.type).sort()).toEqual(['email.sent', 'reply.received']);
    // One was delivered already; the reply is still owed.
    const sentEvent = before.find((i) => i.type === 'email.sent')!;
    await deps.store.update(deliveryKey(hook.id, String(sentEvent.eventId)), { set: { delivered: true }, remove: ['gsi3pk', 'gsi3sk'] });

    expect((await leads.erase(deps, { email: 'ann@client.com' })).erased).toBe(1);
    const after = await annEvents();
    expect(after).toHaveLength(2);
    for (const item of after) {
      expect(String(item.body)).not.toContain('ann@client.com');
      expect(String(item.body)).not.toContain('555 0100');
      expect(JSON.parse(String(item.body)).data).toEqual({ leadId: ids['ann@client.com'], erased: true });
    }
    const reply = after.find((i) => i.type === 'reply.received')!;
    expect(reply).toMatchObject({ delivered: false, givenUp: true, lastError: 'the lead was erased before the event was delivered' });
    expect(reply.gsi3pk).toBeUndefined();
    expect(after.find((i) => i.type === 'email.sent')).toMatchObject({ delivered: true });
    // The other lead's events are untouched.
    const others = (await owed(deps, hook.id)).length - after.length;
    expect(others).toBeGreaterThan(0);
  });

  it("erasing someone who answered in a lead's thread (a colleague) empties their address and words from that lead's reply event, and keeps the event", async () => {
    const { deps, hook, box, ids, messageIds } = await setup();
    const mailbox = await mailboxes.get(deps, String(box.id));
    await applyMessages(deps, mailbox, [
      message({
        from: 'cat@client.com',
        subject: 'Re: Hi from Cat',
        inReplyTo: [messageIds['ann@client.com']!],
        text: 'Ann left; call me on 555 0101.',
      }),
    ]);
    const replyEvent = async () => {
      for (const d of await owed(deps, hook.id)) {
        const item = (await deps.store.get(deliveryKey(hook.id, d.eventId)))!;
        if (item.type === 'reply.received') return item;
      }
      return undefined;
    };
    const before = (await replyEvent())!;
    expect(JSON.parse(String(before.body)).data).toMatchObject({
      leadId: ids['ann@client.com'],
      fromEmail: 'cat@client.com',
      subject: 'Re: Hi from Cat',
    });
    const sentBefore = await bodyOf(deps, hook.id, String((await owed(deps, hook.id)).find((d) => d.type === 'email.sent')!.eventId));

    // An erase stopped while it empties the event (the store fails) is simply run again, and then reaches it.
    const failing = {
      ...deps,
      store: Object.assign(Object.create(deps.store) as typeof deps.store, {
        update: async (key: { pk: string; sk: string }, change: Parameters<typeof deps.store.update>[1]) =>
          key.sk.startsWith('DELIVERY#') ? Promise.reject(new Error('store down')) : deps.store.update(key, change),
      }),
    };
    await expect(leads.erase(failing, { email: 'cat@client.com' })).rejects.toThrow('store down');
    await leads.erase(deps, { email: 'cat@client.com' });
    const after = (await replyEvent())!;
    expect(String(after.body)).not.toContain('cat@client.com');
    expect(String(after.body)).not.toContain('Cat');
    expect(String(after.body)).not.toContain('555 0101');
    // Still Ann's event, still owed: her thread had an answer.
    const data = JSON.parse(String(after.body)).data;
    expect(data).toMatchObject({ leadId: ids['ann@client.com'], mailboxId: String(box.id), subject: '', snippet: '', erased: true });
    // The documented shape still holds, so a receiver that validates the event takes it.
    expect(EVENT_DATA['reply.received'].data.strict().safeParse(data).success).toBe(true);
    expect(after).toMatchObject({ delivered: false });
    expect(after.givenUp).toBeUndefined();
    // Ann's other events are hers alone: untouched.
    expect(await bodyOf(deps, hook.id, String(sentBefore.id))).toEqual(sentBefore);
  });

  it('pausing the whole queue gives each running campaign one campaign.paused (reason queue); pausing it again gives none', async () => {
    const { deps, hook, campaignId } = await setup();
    const paused = async () => {
      const out = [];
      for (const d of (await owed(deps, hook.id)).filter((x) => x.type === 'campaign.paused'))
        out.push((await bodyOf(deps, hook.id, d.eventId)).data);
      return out;
    };
    await queue.pause(deps, { paused: true });
    expect(await paused()).toEqual([{ campaignId, reason: 'queue' }]);
    await queue.pause(deps, { paused: true });
    expect(await paused()).toHaveLength(1);
    // Resumed and paused again later: a new pause, a new event.
    await queue.pause(deps, { paused: false });
    deps.wallClock.advance(60_000);
    await queue.pause(deps, { paused: true });
    expect(await paused()).toHaveLength(2);
  });

  it('a queue pause whose events could not be written holds, and the webhooks schedule writes them later, once', async () => {
    const { deps, hook, campaignId } = await setup();
    const queuePausedEvents = async () => (await owed(deps, hook.id)).filter((x) => x.type === 'campaign.paused');
    // The store refuses every outbox write while the pause is made (a crash right after the switch looks the same to the store).
    const refusing = {
      ...deps,
      store: Object.assign(Object.create(deps.store) as typeof deps.store, {
        transact: async () => Promise.reject(new Error('store down')),
      }),
    };
    expect((await queue.pause(refusing, { paused: true })).isPaused).toBe(true);
    expect(await queuePausedEvents()).toEqual([]);
    expect(deps.logs.some((l) => String(l.msg).includes('campaign.paused event of a queue pause was not written'))).toBe(true);

    // Not before the pause's own request could still be writing them.
    expect(await queue.finishPauseAnnouncement(deps)).toBe('none');
    // A finisher that cannot read who subscribes has not announced anything: it leaves the pause unannounced.
    const blind = {
      ...deps,
      store: Object.assign(Object.create(deps.store) as typeof deps.store, {
        query: async (q: IndexQuery) => (q.pk === 'WEBHOOKS' ? Promise.reject(new Error('store down')) : deps.store.query(q)),
      }),
    };
    deps.wallClock.advance(queue.ANNOUNCE_GRACE_MS);
    expect(await queue.finishPauseAnnouncement(blind)).toBe('unwritten');
    expect(await queuePausedEvents()).toEqual([]);
    // Then once.
    deps.wallClock.advance(queue.ANNOUNCE_GRACE_MS);
    expect(await queue.finishPauseAnnouncement(deps)).toBe('written');
    const [event] = await queuePausedEvents();
    expect((await bodyOf(deps, hook.id, event!.eventId)).data).toEqual({ campaignId, reason: 'queue' });
    deps.wallClock.advance(queue.ANNOUNCE_GRACE_MS);
    expect(await queue.finishPauseAnnouncement(deps)).toBe('none');

    // Announced again (two finishers at once): a delivered event is not made owed again.
    await deps.store.update(deliveryKey(hook.id, event!.eventId), { set: { delivered: true }, remove: ['gsi3pk', 'gsi3sk'] });
    await deps.store.update({ pk: 'SETTING', sk: 'QUEUE' }, { set: { announced: false } });
    deps.wallClock.advance(queue.ANNOUNCE_GRACE_MS);
    expect(await queue.finishPauseAnnouncement(deps)).toBe('written');
    expect(await queuePausedEvents()).toHaveLength(1);
    expect(await deps.store.get(deliveryKey(hook.id, event!.eventId))).toMatchObject({ delivered: true });
  });

  it('a campaign paused by hand gives one campaign.paused; pausing it again gives none', async () => {
    const { deps, hook, campaignId } = await setup();
    await campaigns.setStatus(deps, campaignId, 'PAUSED');
    await campaigns.setStatus(deps, campaignId, 'PAUSED');
    const paused = (await owed(deps, hook.id)).filter((d) => d.type === 'campaign.paused');
    expect(paused).toHaveLength(1);
    expect((await bodyOf(deps, hook.id, paused[0]!.eventId)).data).toEqual({ campaignId, reason: 'manual' });
  });

  it('makes no event when no webhook listens to the type', async () => {
    const { deps, hook, campaignId } = await setup();
    await webhooks.remove(deps, hook.id);
    const other = await webhooks.create(deps, { url: 'https://hooks.example.com/other', events: ['mailbox.error'] });
    await campaigns.setStatus(deps, campaignId, 'PAUSED');
    expect(await owed(deps, other.id)).toEqual([]);
  });
});
