/**
 * Variants on the unit tier: their validation, the variant a first email
 * gets (once, kept, balanced), its copy, the figures per lead, the winner and
 * its event, autoWinner, and the send path's four requests.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from './index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import * as webhooks from '../webhooks/index.ts';
import { applyMessages } from '../inbound/apply.ts';
import { applyAiStatus, listReplies, updateReply } from '../inbound/replies.ts';
import { inboundFromItem } from '../inbound/entity.ts';
import { inboundKey, inboundOfLead } from '../inbound/keys.ts';
import type { TransactOp } from '../ports/store.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { refOf } from '../job-kinds.ts';
import { getJob } from '../sending/jobs.ts';
import { jobId, jobKey } from '../sending/keys.ts';
import { sendJob } from '../sending/sender.ts';
import { leadKey } from '../lead/keys.ts';
import { fromItem as leadFromItem } from '../lead/entity.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { ConflictError, TransactionFailedError, ValidationError } from '../errors.ts';
import { campaignKey, counter } from './keys.ts';
import { fromItem, variantCount } from './entity.ts';
import { chooseVariant, figures, POSITIVE_STATUSES } from './variants.ts';
import { METHOD } from './variant-stats.ts';

const VARIANTS = [
  { subject: 'Alpha {{firstName}}', template: 'Body A for {{company}}.' },
  { subject: '{Beta|Bravo} subject', template: 'Body B.' },
];

async function setup(deps: UnitDeps, n: number, extra: Record<string, unknown> = {}) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
  const box = await created(mailboxes.create, deps, {
    email: 'rep@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
    dailyCap: 1000,
  });
  const c = await created(campaigns.create, deps, {
    name: 'V',
    aiPromptTemplate: 'x',
    mailboxIds: [String(box.id)],
    variants: VARIANTS,
    steps: [{ waitDays: 2, body: 'Bump.' }],
    ...extra,
  });
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      String((await created(leads.create, deps, { campaignId: c.id, email: `p${i}@client.com`, firstName: `P${i}`, company: 'Acme' })).id),
    );
  await campaigns.launch(deps, String(c.id));
  return { campaignId: String(c.id), ids };
}

/** The job made QUEUED and due now, then sent (the clock moved past the mailbox's cadence slot first). */
async function sendFirst(deps: UnitDeps, leadId: string) {
  deps.clock.advance(11 * 60_000);
  const id = jobId(leadId, 0);
  await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
  return sendJob(deps, id, { ref: refOf((await getJob(deps, id))!) });
}

const leadOf = async (deps: UnitDeps, id: string) => leadFromItem((await deps.store.get(leadKey(id)))!);
const campaignOf = async (deps: UnitDeps, id: string) => fromItem((await deps.store.get(campaignKey(id)))!);

const reply = (over: Partial<InboundMessage>): InboundMessage => ({
  uid: 1,
  receivedAt: Date.UTC(2026, 2, 2, 12),
  messageId: `m${Math.random()}@client.com`,
  inReplyTo: [],
  references: [],
  to: ['rep@sender.com'],
  subject: 'Re: Hi',
  headers: {},
  text: 'Yes please, send me a time for a call.',
  ...over,
});

describe('variants', () => {
  it('takes 2 to 6 variants validated like the campaign copy, shows them with autoWinner, and null removes them', async () => {
    const deps = unitDeps();
    const base = { name: 'C', aiPromptTemplate: 'x' };
    const create = (body: unknown) => Promise.resolve().then(() => campaigns.create(deps, body));
    await expect(create({ ...base, variants: [VARIANTS[0]] })).rejects.toThrow(/variants: must hold 2 to 6 variants/);
    await expect(create({ ...base, variants: Array(7).fill(VARIANTS[0]) })).rejects.toThrow(ValidationError);
    await expect(create({ ...base, variants: [VARIANTS[0], { subject: 'x', template: 'Hi {a|b' }] })).rejects.toThrow(
      /^variants\.1\.template/,
    );
    await expect(create({ ...base, variants: [VARIANTS[0], { subject: 'x' }] })).rejects.toThrow(/variants\.1\.template is required/);
    const c = await campaigns.create(deps, { ...base, variants: VARIANTS });
    expect(c).toMatchObject({ variants: VARIANTS, autoWinner: false });
    expect(c).not.toHaveProperty('variantsId');
    expect(await campaigns.update(deps, c.id, { autoWinner: true, variants: null })).toMatchObject({ variants: null, autoWinner: true });
  });

  it('refuses a launch with an empty variant (EMAIL_EMPTY), and needs no campaign template beside variants', async () => {
    const deps = unitDeps();
    const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
    const box = await created(mailboxes.create, deps, {
      email: 'rep@sender.com',
      domainId: domain.id,
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
    });
    const c = await campaigns.create(deps, {
      name: 'C',
      aiPromptTemplate: 'x',
      mailboxIds: [String(box.id)],
      variants: [VARIANTS[0], { subject: 'Two', template: '  ' }],
    });
    const check = await campaigns.launchCheck(deps, c.id);
    expect(check.problems).toEqual([expect.objectContaining({ code: 'EMAIL_EMPTY', variant: 1 })]);
    await campaigns.update(deps, c.id, { variants: VARIANTS });
    expect((await campaigns.launchCheck(deps, c.id)).problems).toEqual([]);
  });

  it("gives each lead one variant at its first email, sends that variant's copy with spintax and placeholders, and counts it once", async () => {
    const deps = unitDeps();
    const { campaignId, ids } = await setup(deps, 4);
    for (const id of ids) expect(await sendFirst(deps, id)).toBe('sent');
    const given = await Promise.all(ids.map(async (id) => (await leadOf(deps, id)).variant));
    expect(given.every((v) => v === 0 || v === 1)).toBe(true);
    deps.mailer.sent.forEach((s, i) => {
      const v = given[i]!;
      if (v === 0) {
        expect(s.email.subject).toBe(`Alpha P${i}`);
        expect(s.email.text).toContain('Body A for Acme.');
      } else {
        expect(s.email.subject).toMatch(/^(Beta|Bravo) subject$/);
        expect(s.email.text).toContain('Body B.');
      }
    });
    const c = await campaignOf(deps, campaignId);
    for (const v of [0, 1]) {
      const n = given.filter((g) => g === v).length;
      expect(variantCount(c, v, 'assigned')).toBe(n);
      expect(variantCount(c, v, 'sent')).toBe(n);
    }
    // The lead row shows it; a lead not yet sent shows null.
    const page = await leads.list(deps, { campaignId });
    expect(page.leads.map((l) => l.variant).sort()).toEqual([...given].sort());
    // A follow-up is the same for every variant and answers the variant's subject.
    const lead = await leadOf(deps, ids[0]!);
    deps.clock.advance(3 * 86_400_000);
    const follow = jobId(ids[0]!, 1);
    await deps.store.update(jobKey(follow), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    expect(await sendJob(deps, follow)).toBe('sent');
    expect(deps.mailer.sent.at(-1)!.email.subject).toBe(`Re: ${lead.thread!.firstSubject}`);
    expect(variantCount(await campaignOf(deps, campaignId), lead.variant!, 'sent')).toBe(given.filter((g) => g === lead.variant).length);
  });

  it("keeps a lead's variant across a retry: the second claim gives nothing new and counts nothing more", async () => {
    const deps = unitDeps();
    const { campaignId, ids } = await setup(deps, 1);
    deps.mailer.answer({ ok: false, kind: 'temporary', code: 451, detail: '451 try later' });
    expect(await sendFirst(deps, ids[0]!)).toBe('rescheduled');
    const first = (await leadOf(deps, ids[0]!)).variant;
    expect(first).toBeDefined();
    deps.clock.advance(10 * 60_000);
    expect(await sendFirst(deps, ids[0]!)).toBe('sent');
    expect((await leadOf(deps, ids[0]!)).variant).toBe(first);
    const c = await campaignOf(deps, campaignId);
    expect(variantCount(c, first!, 'assigned')).toBe(1);
    expect(variantCount(c, 1 - first!, 'assigned')).toBe(0);
    expect(variantCount(c, first!, 'sent')).toBe(1);
    expect(deps.mailer.sent.at(-1)!.email.subject).toMatch(first === 0 ? /^Alpha/ : /subject$/);
  });

  it('a first email with variants still costs 4 store requests', async () => {
    const deps = unitDeps();
    const { ids } = await setup(deps, 2);
    expect(await sendFirst(deps, ids[0]!)).toBe('sent');
    deps.clock.advance(11 * 60_000);
    const id = jobId(ids[1]!, 0);
    await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    const ref = refOf((await getJob(deps, id))!);
    deps.store.reset();
    expect(await sendJob(deps, id, { ref })).toBe('sent');
    expect(Object.values(deps.store.requests).reduce((x, y) => x + y, 0)).toBe(4);
  });

  it("keeps the counts within 2 when many claims read the same counts at once (the claim's condition refuses the rest)", async () => {
    const deps = unitDeps();
    const { campaignId } = await setup(deps, 0, { variants: [...VARIANTS, { subject: 'C', template: 'Body C.' }] });
    // 60 writers, each reading the campaign, choosing, and writing its count; a refused one reads again, as the sender does.
    const writer = async () => {
      for (;;) {
        const choice = chooseVariant(await campaignOf(deps, campaignId), {}, deps.random)!;
        await Promise.resolve();
        try {
          await deps.store.transact([choice.op!]);
          return;
        } catch (err) {
          if (!(err instanceof TransactionFailedError)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: 60 }, writer));
    const c = await campaignOf(deps, campaignId);
    const counts = [0, 1, 2].map((i) => variantCount(c, i, 'assigned'));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(60);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(2);
  });

  it('chooses at random among the variants at most one above the lowest count', () => {
    const c = fromItem({
      ...campaignKey('c'),
      id: 'c',
      name: 'c',
      status: 'ACTIVE',
      variants: [...VARIANTS, VARIANTS[0]],
      [counter.variant(0, 'assigned')]: 5,
      [counter.variant(1, 'assigned')]: 4,
      [counter.variant(2, 'assigned')]: 6,
    });
    const seen = new Set<number>();
    let r = 0;
    for (let i = 0; i < 50; i++) seen.add(chooseVariant(c, {}, () => (r = (r + 0.137) % 1))!.index);
    expect([...seen].sort()).toEqual([0, 1]);
    expect(chooseVariant(c, { variant: 2 }, Math.random)).toMatchObject({ index: 2, fresh: false });
    expect(chooseVariant({ ...c, autoWinner: true, winner: 2 }, {}, Math.random)).toMatchObject({ index: 2, fresh: true });
  });

  it('refuses to change variants once a first email used them (409), and allows it before', async () => {
    const deps = unitDeps();
    const { campaignId, ids } = await setup(deps, 1);
    const other = [VARIANTS[1], VARIANTS[0]];
    await campaigns.update(deps, campaignId, { variants: other });
    await campaigns.update(deps, campaignId, { variants: VARIANTS });
    expect(await sendFirst(deps, ids[0]!)).toBe('sent');
    await expect(campaigns.update(deps, campaignId, { variants: other })).rejects.toThrow(ConflictError);
    await expect(campaigns.update(deps, campaignId, { variants: null })).rejects.toThrow(ConflictError);
    // The same variants again change nothing, and other fields still change.
    expect(await campaigns.update(deps, campaignId, { variants: VARIANTS, name: 'Renamed' })).toMatchObject({
      name: 'Renamed',
      variants: VARIANTS,
    });
  });

  it("counts a lead positive once, moves with a person's changes, and counts replied per lead", async () => {
    const deps = unitDeps();
    const { campaignId, ids } = await setup(deps, 1);
    expect(await sendFirst(deps, ids[0]!)).toBe('sent');
    const v = (await leadOf(deps, ids[0]!)).variant!;
    const messageId = deps.mailer.sent.at(-1)!.email.messageId;
    const [box] = await mailboxes.list(deps);
    const mailbox = await mailboxes.get(deps, String(box!.id));
    await applyMessages(deps, mailbox, [reply({ from: 'p0@client.com', inReplyTo: [messageId], text: 'Not interested, thanks.' })]);
    await applyMessages(deps, mailbox, [
      reply({ uid: 2, from: 'p0@client.com', inReplyTo: [messageId], text: 'Actually, what does it cost?' }),
    ]);
    const row = (await figures(deps, campaignId)).variants[v]!;
    expect(row).toMatchObject({ sent: 1, replied: 1, positive: 0 });
    const list = (await import('../inbound/replies.ts')).listReplies;
    const [r1, r2] = (await list(deps, { campaignId })).replies;
    await updateReply(deps, r1!.id, { status: 'INTERESTED' });
    await updateReply(deps, r2!.id, { status: 'MEETING_BOOKED' });
    expect((await figures(deps, campaignId)).variants[v]!.positive).toBe(1);
    await updateReply(deps, r1!.id, { status: 'WON' });
    await updateReply(deps, r2!.id, { status: 'LOST' });
    expect((await figures(deps, campaignId)).variants[v]!.positive).toBe(1);
    await updateReply(deps, r1!.id, { status: 'NOT_INTERESTED' });
    expect((await figures(deps, campaignId)).variants[v]!.positive).toBe(0);
    // Repeating a status moves nothing.
    await updateReply(deps, r1!.id, { status: 'NOT_INTERESTED' });
    expect((await figures(deps, campaignId)).variants[v]).toMatchObject({ replied: 1, positive: 0 });
  });

  it('names a winner once with campaign.winner, keeps it, and autoWinner gives it to leads not yet sent', async () => {
    const deps = unitDeps();
    const hook = await webhooks.create(deps, { url: 'https://hooks.example.com/in', events: ['campaign.winner'] });
    const { campaignId, ids } = await setup(deps, 3, { autoWinner: true });
    expect(await sendFirst(deps, ids[0]!)).toBe('sent');
    // Figures as the facts would have counted them: 30/110 against 3/110.
    await deps.store.update(campaignKey(campaignId), {
      set: {
        [counter.variant(0, 'sent')]: 110,
        [counter.variant(1, 'sent')]: 110,
        [counter.variant(0, 'positive')]: 3,
        [counter.variant(1, 'positive')]: 30,
        [counter.variant(0, 'assigned')]: 110,
        [counter.variant(1, 'assigned')]: 110,
      },
    });
    const named = await figures(deps, campaignId);
    expect(named).toMatchObject({ winner: 1, method: METHOD });
    // Once named it stays, whatever the figures do later.
    await deps.store.update(campaignKey(campaignId), { set: { [counter.variant(1, 'positive')]: 3 } });
    expect((await figures(deps, campaignId)).winner).toBe(1);
    const events = (await webhooks.deliveries(deps, hook.id)).deliveries.filter((d) => d.type === 'campaign.winner');
    expect(events).toHaveLength(1);
    // autoWinner: the next leads get the winner, whatever the balance says.
    for (const id of ids.slice(1)) expect(await sendFirst(deps, id)).toBe('sent');
    for (const id of ids.slice(1)) expect((await leadOf(deps, id)).variant).toBe(1);
  });

  it("counts a first email refused at SMTP as its variant's bounce, and an unsubscribe as its variant's, per lead", async () => {
    const deps = unitDeps();
    const { campaignId, ids } = await setup(deps, 2);
    deps.mailer.answer({
      ok: false,
      kind: 'permanent',
      code: 550,
      detail: '550 5.1.1 <p0@client.com>: Recipient address rejected: User unknown',
    });
    expect(await sendFirst(deps, ids[0]!)).toBe('bounced');
    const bouncedVariant = (await leadOf(deps, ids[0]!)).variant!;
    expect(await sendFirst(deps, ids[1]!)).toBe('sent');
    const lead = await leadOf(deps, ids[1]!);
    const facts = await import('../lead/facts.ts');
    expect(await facts.unsubscribed(deps, { email: lead.email, lead })).toBe(true);
    const rows = (await figures(deps, campaignId)).variants;
    expect(rows[bouncedVariant]!.bounced).toBe(1);
    expect(rows[lead.variant!]!.unsubscribed).toBe(1);
    expect(rows.reduce((n, r) => n + r.bounced + r.unsubscribed, 0)).toBe(2);
  });

  it('names no winner at 31/1000 against 40/1000', async () => {
    const deps = unitDeps();
    const { campaignId } = await setup(deps, 0);
    await deps.store.update(campaignKey(campaignId), {
      set: {
        [counter.variant(0, 'sent')]: 1000,
        [counter.variant(1, 'sent')]: 1000,
        [counter.variant(0, 'positive')]: 31,
        [counter.variant(1, 'positive')]: 40,
      },
    });
    expect((await figures(deps, campaignId)).winner).toBeNull();
  });
});

describe("a variant's positive count", () => {
  /** One lead sent its first email, and its replies read in its thread (as the poller reads them). */
  async function answered(deps: UnitDeps, ...texts: string[]) {
    const { campaignId, ids } = await setup(deps, 1);
    expect(await sendFirst(deps, ids[0]!)).toBe('sent');
    const messageId = deps.mailer.sent.at(-1)!.email.messageId;
    const [box] = await mailboxes.list(deps);
    const mailbox = await mailboxes.get(deps, String(box!.id));
    const message = (text: string, i: number) => reply({ uid: 10 + i, from: 'p0@client.com', inReplyTo: [messageId], text });
    for (const [i, text] of texts.entries()) await applyMessages(deps, mailbox, [message(text, i)]);
    const replies = (await listReplies(deps, { campaignId })).replies.map((r) => r.id).reverse();
    return { campaignId, leadId: ids[0]!, replies, mailbox, message };
  }

  /** The store as a process that dies at its `at`-th write: that write and every one after it throw. */
  function dyingAt(deps: UnitDeps, at: number) {
    const store = deps.store;
    const state = { writes: 0, died: false };
    const writes = new Set(['put', 'update', 'delete', 'transact', 'batchPut']);
    const dying = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (typeof value !== 'function') return value;
        if (!writes.has(String(prop))) return value.bind(target);
        return async (...args: unknown[]) => {
          if (++state.writes >= at) {
            state.died = true;
            throw new Error('the process died');
          }
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    return { deps: { ...deps, store: dying }, state };
  }

  /** Each reply counted exactly when its status is positive, the lead's count their number, the variant counting the lead once while it is above 0. */
  async function consistent(deps: UnitDeps, campaignId: string, leadId: string) {
    const rows = (await deps.store.query({ ...inboundOfLead(leadId) })).items.map(inboundFromItem).filter((r) => r.kind === 'REPLY');
    const positive = rows.filter((r) => POSITIVE_STATUSES.has(r.replyStatus ?? 'NEEDS_REVIEW'));
    expect(rows.map((r) => [r.replyStatus, r.countedPositive === true])).toEqual(
      rows.map((r) => [r.replyStatus, POSITIVE_STATUSES.has(r.replyStatus ?? 'NEEDS_REVIEW')]),
    );
    const lead = await leadOf(deps, leadId);
    expect(lead.positiveReplies ?? 0).toBe(positive.length);
    expect((await figures(deps, campaignId)).variants[lead.variant!]!.positive).toBe(positive.length ? 1 : 0);
    return positive.length;
  }

  it("a person's change and its count commit together, whichever write a crash stops", async () => {
    let survived = false;
    for (let at = 1; !survived; at++) {
      const deps = unitDeps();
      const { campaignId, leadId, replies } = await answered(deps, 'Not interested, thanks.');
      const dying = dyingAt(deps, at);
      await updateReply(dying.deps, replies[0]!, { status: 'INTERESTED' }).catch(() => undefined);
      survived = !dying.state.died;
      const counted = await consistent(deps, campaignId, leadId);
      expect(counted).toBe(survived ? 1 : (await statusOf(deps, replies[0]!)) === 'INTERESTED' ? 1 : 0);
      // Tried again after the crash, the change counts once.
      await updateReply(deps, replies[0]!, { status: 'INTERESTED' });
      expect(await consistent(deps, campaignId, leadId)).toBe(1);
    }
  });

  it("the rules' positive reading and its count commit together, whichever write a crash stops", async () => {
    let survived = false;
    for (let at = 1; !survived; at++) {
      const deps = unitDeps();
      const { campaignId, leadId, mailbox, message } = await answered(deps);
      const dying = dyingAt(deps, at);
      const positive = message('Yes please, send me a time for a call.', 1);
      await applyMessages(dying.deps, mailbox, [positive]);
      survived = !dying.state.died;
      await consistent(deps, campaignId, leadId);
      // Read again (the cursor was not saved), the reply counts once.
      await applyMessages(deps, mailbox, [positive]);
      expect(await consistent(deps, campaignId, leadId)).toBe(1);
      expect((await figures(deps, campaignId)).variants[(await leadOf(deps, leadId)).variant!]).toMatchObject({ replied: 1, positive: 1 });
    }
  });

  it("the AI's status and its count commit together, whichever write a crash stops", async () => {
    let survived = false;
    for (let at = 1; !survived; at++) {
      const deps = unitDeps();
      const { campaignId, leadId, replies } = await answered(deps, 'Received, thank you.');
      const read = async () => inboundFromItem((await deps.store.get(inboundKey(replies[0]!)))!);
      expect((await read()).replyStatus).toBe('NEEDS_REVIEW');
      const dying = dyingAt(deps, at);
      await applyAiStatus(dying.deps, await read(), 'INTERESTED', []).catch(() => undefined);
      survived = !dying.state.died;
      expect(await consistent(deps, campaignId, leadId)).toBe((await read()).replyStatus === 'INTERESTED' ? 1 : 0);
    }
  });

  it('counts a lead with two positive replies once, also when two people change them at the same moment', async () => {
    const deps = unitDeps();
    const { campaignId, leadId, replies } = await answered(deps, 'Not interested, thanks.', 'Actually, what does it cost?');
    const [a, b] = replies as [string, string];
    const refused = { count: 0 };
    const store = deps.store;
    const counting = new Proxy(store, {
      get(target, prop) {
        if (prop === 'transact')
          return (ops: TransactOp[]) =>
            target.transact(ops).catch((err: unknown) => {
              if (err instanceof TransactionFailedError) refused.count++;
              throw err;
            });
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const both = { ...deps, store: counting };
    await Promise.all([updateReply(both, a, { status: 'INTERESTED' }), updateReply(both, b, { status: 'MEETING_BOOKED' })]);
    expect(await consistent(deps, campaignId, leadId)).toBe(2);
    // Both read the lead's count before either wrote: one write was refused, read again and went over the other.
    expect(refused.count).toBeGreaterThan(0);
    // One taken back: the lead still counts, once.
    await updateReply(deps, a, { status: 'NOT_INTERESTED' });
    expect(await consistent(deps, campaignId, leadId)).toBe(1);
    await Promise.all([updateReply(both, a, { status: 'WON' }), updateReply(both, b, { status: 'LOST' })]);
    expect(await consistent(deps, campaignId, leadId)).toBe(1);
    await Promise.all([updateReply(both, a, { status: 'NOT_NOW' }), updateReply(both, b, { status: 'NOT_INTERESTED' })]);
    expect(await consistent(deps, campaignId, leadId)).toBe(0);
    // Each change still made its one event and moved its version.
    const versions = await Promise.all(replies.map(async (id) => inboundFromItem((await deps.store.get(inboundKey(id)))!).statusVersion));
    expect(versions).toEqual([4, 3]);
  });
});

const statusOf = async (deps: UnitDeps, id: string) => inboundFromItem((await deps.store.get(inboundKey(id)))!).replyStatus;
