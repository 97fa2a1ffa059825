/**
 * Conversations on the unit tier (docs/api.md, Conversations): the text kept for each email and reply,
 * the conversation's pages, and a person's answer through the one send path: threaded, with every
 * guardrail, held by nothing that holds campaign mail, refused only for what docs/api.md names, exactly once.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import * as queue from '../queue/index.ts';
import * as suppression from '../suppression/index.ts';
import * as webhooks from '../webhooks/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { queryAll } from '../collections.ts';
import { applyMessages } from '../inbound/apply.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { message, sentTo } from '../testing/inbound-fixtures.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { dailyCapKey, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';
import { dispatch } from '../sending/dispatcher.ts';
import { getJob, moveOps } from '../sending/jobs.ts';
import { answer, conversation } from './index.ts';
import { MAX_TEXT_BYTES } from './entity.ts';
import { answersOfLead, messagesOfLead } from './keys.ts';

const REPLY_ID = 'reply-1@client.com';

/** Ann was sent her first email; she answers in its thread at noon; the clock moves past it. */
async function replied(deps: UnitDeps, text = 'Sounds good. What does Tuesday look like?') {
  const sent = await sentTo(deps, ['ann@client.com']);
  const box = await mailboxes.get(deps, sent.box.id);
  await applyMessages(deps, box, [
    message({ from: 'ann@client.com', inReplyTo: [sent.messageIds['ann@client.com']!], messageId: REPLY_ID, subject: 'Re: Hi F', text }),
  ]);
  deps.clock.set(Date.UTC(2026, 2, 2, 13));
  return { ...sent, leadId: sent.ids['ann@client.com']! };
}

/** Sends what the last POST queued, as the queue's consumer would. */
async function drain(deps: UnitDeps) {
  const m = deps.queued.at(-1)!;
  return sendJob(deps, m.jobId, { ref: m.ref });
}

describe('the text kept and the conversation', () => {
  it('shows the first email as sent and the reply as received, oldest first, with the reply’s status', async () => {
    const deps = unitDeps();
    const { leadId, box, campaignId, messageIds } = await replied(deps);
    const c = await conversation(deps, leadId, {});
    expect(c).toMatchObject({ leadId, campaignId, mailboxId: box.id, nextCursor: null });
    expect(c.messages).toHaveLength(2);
    const [out, inn] = c.messages;
    expect(out).toMatchObject({ direction: 'out', step: 0, messageId: messageIds['ann@client.com'], subject: 'Hi F' });
    // The text as sent: the copy, the footer's address and the unsubscribe link.
    expect(out!.text).toBe(deps.mailer.sent[0]!.email.text);
    expect(out!.text).toMatch(/Hello\.[\s\S]*1 Main St/);
    expect(inn).toMatchObject({
      direction: 'in',
      fromEmail: 'ann@client.com',
      subject: 'Re: Hi F',
      text: 'Sounds good. What does Tuesday look like?',
      status: expect.any(String),
    });
  });

  it('pages by limit with a cursor; 404 for an unknown lead; 422 for a bad limit or cursor', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps);
    const first = await conversation(deps, leadId, { limit: '1' });
    expect(first.messages.map((m) => m.direction)).toEqual(['out']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await conversation(deps, leadId, { limit: '1', cursor: first.nextCursor });
    expect(second.messages.map((m) => m.direction)).toEqual(['in']);
    expect(second.nextCursor).toBeNull();
    await expect(conversation(deps, 'nobody', {})).rejects.toThrow(NotFoundError);
    await expect(conversation(deps, leadId, { limit: '0' })).rejects.toThrow(ValidationError);
    await expect(conversation(deps, leadId, { limit: '201' })).rejects.toThrow(ValidationError);
    await expect(conversation(deps, leadId, { cursor: 'nonsense' })).rejects.toThrow(ValidationError);
  });

  it('keeps at most 64 KB of a reply’s text, whole characters only', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps, `Yes. ${'é'.repeat(40_000)}`);
    const inn = (await conversation(deps, leadId, {})).messages[1]!;
    expect(Buffer.byteLength(inn.text, 'utf8')).toBeLessThanOrEqual(MAX_TEXT_BYTES);
    expect(inn.text.endsWith('é')).toBe(true);
  });

  it('erase empties every message and the answer’s words; delete removes them', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps);
    await answer(deps, leadId, { text: 'Tuesday at 10 works.' });
    await drain(deps);
    await leads.erase(deps, { email: 'ann@client.com' });
    const items = await queryAll(deps.store, messagesOfLead(leadId));
    expect(items).toHaveLength(3);
    for (const item of items) expect(item).toMatchObject({ text: '', subject: '' });
    expect(JSON.stringify(items)).not.toContain('ann@client.com');
    const [job] = await queryAll(deps.store, { ...answersOfLead(leadId) });
    expect(job!.body).toBeUndefined();
    await leads.remove(deps, leadId);
    expect(await queryAll(deps.store, messagesOfLead(leadId))).toHaveLength(0);
    expect(await queryAll(deps.store, { ...answersOfLead(leadId) })).toHaveLength(0);
  });

  it('erasing a colleague who answered in the lead’s thread empties that reply’s text there', async () => {
    const deps = unitDeps();
    const { leadId, box, messageIds } = await replied(deps);
    const colleague = message({
      from: 'cy@client.com',
      inReplyTo: [messageIds['ann@client.com']!],
      messageId: 'cy-1@client.com',
      text: 'Cy here, I handle this for Ann.',
    });
    await applyMessages(deps, await mailboxes.get(deps, box.id), [colleague]);
    expect((await conversation(deps, leadId, {})).messages.map((m) => m.text)).toContain('Cy here, I handle this for Ann.');
    await leads.erase(deps, { email: 'cy@client.com' });
    const after = (await conversation(deps, leadId, {})).messages;
    expect(after).toHaveLength(3);
    expect(after[2]).toMatchObject({ direction: 'in', text: '', subject: '' });
    expect(JSON.stringify(after)).not.toContain('cy@client.com');
    // Ann's own reply is hers, and stays.
    expect(after[1]!.text).toContain('Tuesday');
  });
});

describe('a person’s answer', () => {
  it('goes from the pinned mailbox, threaded under the reply, with footer and RFC 8058 headers; email.sent has step null', async () => {
    const deps = unitDeps();
    const hook = await webhooks.create(deps, { url: 'https://hooks.example.com/in', events: ['email.sent'] });
    const { leadId, messageIds } = await replied(deps);
    const { messageId } = await answer(deps, leadId, { text: 'Tuesday at 10 works. I will send an invite.' });
    expect(deps.queued.at(-1)).toMatchObject({ delayMs: 0 });
    expect(await drain(deps)).toBe('sent');
    const { email, transport } = deps.mailer.sent.at(-1)!;
    expect(email).toMatchObject({
      messageId,
      to: 'ann@client.com',
      subject: 'Re: Hi F',
      inReplyTo: REPLY_ID,
      references: [messageIds['ann@client.com'], REPLY_ID],
    });
    expect(email.from.address).toBe('rep@sender.com');
    expect(transport).toMatchObject({ user: 'rep@sender.com' });
    expect(email.text).toMatch(/Tuesday at 10 works[\s\S]*1 Main St[\s\S]*unsubscribe/i);
    expect(email.headers).toMatchObject({
      'List-Unsubscribe': expect.stringMatching(/^<https?:\/\//),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    // In the conversation as sent, step null; the lead is still REPLIED (an answer is not a step of the sequence).
    const c = await conversation(deps, leadId, {});
    expect(c.messages.at(-1)).toMatchObject({ direction: 'out', step: null, messageId, subject: 'Re: Hi F', text: email.text });
    expect((await leads.get(deps, leadId)).status).toBe('REPLIED');
    const sent = (await webhooks.deliveries(deps, hook.id)).deliveries.filter((d) => d.type === 'email.sent');
    expect(sent).toHaveLength(2);
    // A second answer answers the first: the latest message of the thread, whichever way it went.
    const second = await answer(deps, leadId, { text: 'Invite sent.', subject: 'Tuesday' });
    await drain(deps);
    expect(deps.mailer.sent.at(-1)!.email).toMatchObject({ subject: 'Tuesday', inReplyTo: messageId });
    expect(second.messageId).not.toBe(messageId);
  });

  it('is held by no queue pause, paused campaign, cadence slot or daily cap, and is counted in the day', async () => {
    const deps = unitDeps();
    const { leadId, box, campaignId } = await replied(deps);
    await mailboxes.update(deps, { id: box.id, dailyCap: 1 });
    await queue.pause(deps, { paused: true });
    await campaigns.setStatus(deps, campaignId, 'PAUSED');
    // A cadence slot just booked by a send of the mailbox.
    await deps.store.update({ pk: `MAILBOX#${box.id}`, sk: 'MAILBOX' }, { set: { nextSlotAt: deps.clock.now() + 600_000 } });
    const before = Number((await deps.store.get(dailyCapKey(box.id, utcDay(deps.clock.now()))))?.count ?? 0);
    await answer(deps, leadId, { text: 'Thanks, talk Tuesday.' });
    expect(await drain(deps)).toBe('sent');
    expect((await deps.store.get(dailyCapKey(box.id, utcDay(deps.clock.now()))))!.count).toBe(before + 1);
  });

  it('a repeat with one Idempotency-Key answers the first 202 and sends one email', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps);
    const sentBefore = deps.mailer.sent.length;
    const a = await answer(deps, leadId, { text: 'Once.' }, 'click-1');
    const b = await answer(deps, leadId, { text: 'Once.' }, 'click-1');
    expect(b).toEqual(a);
    expect(deps.queued.filter((m) => m.jobId.startsWith('answer-'))).toHaveLength(1);
    await drain(deps);
    // The queue may deliver a message twice: the job is claimed once.
    expect(await drain(deps)).toBe('ignored');
    expect(deps.mailer.sent.length).toBe(sentBefore + 1);
    await expect(answer(deps, leadId, { text: 'x' }, 'k'.repeat(256))).rejects.toThrow(ValidationError);
  });

  it('refuses a suppressed address (409), an empty text, a lead never emailed and a mailbox that cannot send (422), an unknown lead (404)', async () => {
    const deps = unitDeps();
    const { leadId, box, campaignId } = await replied(deps);
    await expect(answer(deps, 'nobody', { text: 'Hi' })).rejects.toThrow(NotFoundError);
    await expect(answer(deps, leadId, { text: '   ' })).rejects.toThrow(ValidationError);
    const fresh = await created(leads.create, deps, { campaignId, email: 'new@client.com' });
    await expect(answer(deps, String(fresh.id), { text: 'Hi' })).rejects.toThrow(/never emailed/);
    await mailboxes.update(deps, { id: box.id, status: 'PAUSED' });
    await expect(answer(deps, leadId, { text: 'Hi' })).rejects.toThrow(/cannot send \(PAUSED\)/);
    await mailboxes.update(deps, { id: box.id, status: 'ACTIVE' });
    await suppression.suppress(deps, 'ann@client.com', 'manual');
    await expect(answer(deps, leadId, { text: 'Hi' })).rejects.toThrow(ConflictError);
  });

  it('an address suppressed after the POST is refused at the send: no email', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps);
    const sentBefore = deps.mailer.sent.length;
    await answer(deps, leadId, { text: 'Hi again.' });
    await suppression.suppress(deps, 'ann@client.com', 'manual');
    expect(await drain(deps)).toBe('cancelled');
    expect(deps.mailer.sent.length).toBe(sentBefore);
  });

  it('an unknown outcome is taken as sent and never sent again', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps);
    await answer(deps, leadId, { text: 'Maybe lost.' });
    deps.mailer.answer({ ok: false, kind: 'unknown', detail: 'connection closed after DATA' });
    expect(await drain(deps)).toBe('unconfirmed');
    const jobId = deps.queued.at(-1)!.jobId;
    expect(await deps.store.get(jobKey(jobId))).toMatchObject({ state: 'SENT', unconfirmed: true });
    expect(await drain(deps)).toBe('ignored');
    expect((await conversation(deps, leadId, {})).messages.at(-1)).toMatchObject({ direction: 'out', step: null });
  });

  it('a sender that died after SMTP began: the dispatcher takes the answer as sent, never sends it again', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps);
    const sentBefore = deps.mailer.sent.length;
    const { messageId } = await answer(deps, leadId, { text: 'Died mid-send.' });
    const id = deps.queued.at(-1)!.jobId;
    const queued = (await getJob(deps, id))!;
    // The claim and the start of SMTP as a sender leaves them when it is killed before the record.
    await deps.store.transact(
      moveOps(queued, 'CLAIMED', {
        set: { claimId: 'dead', claimedAt: deps.clock.now(), messageId, smtpStartedAt: deps.wallClock.now(), attempts: 1 },
        wallNow: deps.wallClock.now(),
      }),
    );
    await dispatch(deps, { requeueAll: true });
    expect(await getJob(deps, id)).toMatchObject({ state: 'SENT', unconfirmed: true, messageId });
    expect(await drain(deps)).toBe('ignored');
    expect(deps.mailer.sent.length).toBe(sentBefore);
    // Its conversation copy keeps the person's words (the footer was never stored before the crash).
    expect((await conversation(deps, leadId, {})).messages.at(-1)).toMatchObject({
      direction: 'out',
      step: null,
      messageId,
      text: 'Died mid-send.',
    });
  });

  it('a sender that died before SMTP began: the claim is due again and the answer goes once', async () => {
    const deps = unitDeps();
    const { leadId } = await replied(deps);
    const sentBefore = deps.mailer.sent.length;
    const first = await answer(deps, leadId, { text: 'Died before SMTP.' });
    const id = deps.queued.at(-1)!.jobId;
    const queued = (await getJob(deps, id))!;
    await deps.store.transact(
      moveOps(queued, 'CLAIMED', {
        set: { claimId: 'dead', claimedAt: deps.clock.now(), messageId: first.messageId, attempts: 1 },
        wallNow: deps.wallClock.now() - 3_600_000,
      }),
    );
    await dispatch(deps, { requeueAll: true });
    const again = deps.queued.filter((m) => m.jobId === id).at(-1)!;
    expect(await sendJob(deps, id, { ref: again.ref })).toBe('sent');
    expect(deps.mailer.sent.length).toBe(sentBefore + 1);
    // With the Message-ID its 202 named, though the dead claim's was dropped.
    expect(deps.mailer.sent.at(-1)!.email.messageId).toBe(first.messageId);
  });
});
