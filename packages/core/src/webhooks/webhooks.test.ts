import { describe, expect, it } from 'vitest';
import { Webhook as Verifier } from 'standardwebhooks';
import { unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import type { DeliveryMessage, PostOutcome } from '../ports/webhooks.ts';
import { ValidationError } from '../errors.ts';
import * as webhooks from './index.ts';
import { MAX_WEBHOOKS } from './index.ts';
import { eraseLeadEvents, eraseReplySender, eventIdOf, eventOps } from './events.ts';
import { deliver, MAX_ATTEMPTS, RETRY_DELAYS_MS, sign, sweep } from './delivery.ts';
import { KEEP_ENDED_MS } from './entity.ts';
import { deliveryKey, webhookCountKey } from './keys.ts';

function setup(answers: (PostOutcome | undefined)[] = []) {
  const posts: { url: string; headers: Record<string, string>; body: string }[] = [];
  const queued: DeliveryMessage[] = [];
  const deps: UnitDeps = unitDeps({
    webhookQueue: { enqueue: async (m) => void queued.push(...m) },
    webhookPoster: { post: async (url, headers, body) => (posts.push({ url, headers, body }), answers.shift() ?? { status: 200 }) },
  });
  return { deps, posts, queued };
}

const SENT = { leadId: 'l1', campaignId: 'c1', mailboxId: 'm1', step: 0, messageId: '<a@b>', sentAt: '2026-03-02T09:00:00.000Z' };

describe('creating a webhook', () => {
  it('answers a whsec_ secret of 32 random bytes once, and stores it sealed', async () => {
    const { deps } = setup();
    const made = await webhooks.create(deps, { url: 'https://hooks.example.com/x', events: ['email.sent'] });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(made.secret.slice(6), 'base64')).toHaveLength(32);
    expect(JSON.stringify(await deps.store.get({ pk: `WEBHOOK#${made.id}`, sk: 'WEBHOOK' }))).not.toContain(made.secret.slice(6));
    expect(await webhooks.list(deps)).toEqual([{ id: made.id, url: made.url, events: ['email.sent'], createdAt: made.createdAt }]);
  });

  it.each([
    [{ url: 'http://hooks.example.com/x', events: ['*'] }, /url: must start with https:\/\//],
    [{ url: 'ftp://hooks.example.com/x', events: ['*'] }, /url: must start with https:\/\//],
    [{ url: 'https://hooks.example.com/x', events: [] }, /events: must name at least one event type/],
    [{ url: 'https://hooks.example.com/x', events: ['email.opened'] }, /events\.0: each must be one of email\.sent/],
    [{ url: 'https://hooks.example.com/x', events: ['*', 'email.sent'] }, /"\*" already means every event type/],
    [{ url: 'not a url', events: ['*'] }, /url: must be an absolute URL/],
  ])('refuses %j with a sentence', async (body, sentence) => {
    const { deps } = setup();
    const err = await webhooks.create(deps, body).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(sentence);
  });

  it('holds at most 25: the 26th is refused with a sentence, and a removal makes room again', async () => {
    const { deps } = setup();
    const made = [];
    for (let i = 0; i < MAX_WEBHOOKS; i++) made.push(await webhooks.create(deps, { url: `https://hooks.example.com/${i}`, events: ['*'] }));
    expect(MAX_WEBHOOKS).toBe(25);
    const err = await webhooks.create(deps, { url: 'https://hooks.example.com/26', events: ['*'] }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/at most 25 webhooks/);
    expect(await webhooks.list(deps)).toHaveLength(25);
    await webhooks.remove(deps, made[0]!.id);
    await expect(webhooks.remove(deps, made[0]!.id)).rejects.toThrow('No webhook has this id.');
    await expect(webhooks.create(deps, { url: 'https://hooks.example.com/26', events: ['*'] })).resolves.toBeDefined();
    await expect(webhooks.create(deps, { url: 'https://hooks.example.com/27', events: ['*'] })).rejects.toBeInstanceOf(ValidationError);
  });

  it('counts, when the count is first needed, the webhooks an installation already had, and two adds at the 24th do not both pass', async () => {
    const { deps } = setup();
    for (let i = 0; i < 23; i++) await webhooks.create(deps, { url: `https://hooks.example.com/${i}`, events: ['*'] });
    // As an installation from before the count: the webhooks are there, their count is not.
    await deps.store.delete(webhookCountKey);
    const results = await Promise.allSettled(
      [0, 1, 2].map((i) => webhooks.create(deps, { url: `https://hooks.example.com/x${i}`, events: ['*'] })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(await webhooks.list(deps)).toHaveLength(25);
  });

  it('takes plain http to a loopback receiver', async () => {
    const { deps } = setup();
    await expect(webhooks.create(deps, { url: 'http://127.0.0.1:9000/in', events: ['*'] })).resolves.toMatchObject({
      url: 'http://127.0.0.1:9000/in',
    });
    await expect(webhooks.create(deps, { url: 'http://localhost:9000/in', events: ['*'] })).resolves.toBeDefined();
  });
});

describe('events', () => {
  it('are made only for subscribed types, with an id the fact alone decides', async () => {
    const { deps } = setup();
    expect(await eventOps(deps, 'email.sent', SENT, 'JOB#l1.0')).toEqual([]);
    const hook = await webhooks.create(deps, { url: 'https://hooks.example.com/x', events: ['email.sent'] });
    const ops = await eventOps(deps, 'email.sent', SENT, 'JOB#l1.0');
    expect(ops).toHaveLength(1);
    expect(await eventOps(deps, 'reply.received', {}, 'INBOUND#x')).toEqual([]);
    deps.clock.advance(60_000);
    const again = await eventOps(deps, 'email.sent', SENT, 'JOB#l1.0');
    expect((again[0] as unknown as { put: { eventId: string } }).put.eventId).toBe(eventIdOf('email.sent', 'JOB#l1.0'));
    expect((ops[0] as unknown as { put: { eventId: string; webhookId: string } }).put).toMatchObject({
      eventId: eventIdOf('email.sent', 'JOB#l1.0'),
      webhookId: hook.id,
    });
    expect(eventIdOf('email.sent', 'JOB#l1.1')).not.toBe(eventIdOf('email.sent', 'JOB#l1.0'));
  });
});

describe('delivery', () => {
  async function owed(answers: (PostOutcome | undefined)[] = []) {
    const s = setup(answers);
    const hook = await webhooks.create(s.deps, { url: 'https://hooks.example.com/x', events: ['*'] });
    await s.deps.store.transact(await eventOps(s.deps, 'email.sent', SENT, 'JOB#l1.0'));
    return { ...s, hook, eventId: eventIdOf('email.sent', 'JOB#l1.0') };
  }

  it('signs as Standard Webhooks says, so its reference library verifies', async () => {
    const { deps, posts, queued, hook, eventId } = await owed();
    // The library refuses a timestamp five minutes from its own clock: the wall clock is the real one here.
    deps.wallClock.set(Date.now());
    expect(await sweep(deps)).toEqual({ queued: 1 });
    expect(await sweep(deps)).toEqual({ queued: 0 });
    expect(await deliver(deps, queued[0]!)).toBe('delivered');
    const [post] = posts;
    expect(post!.headers['webhook-id']).toBe(eventId);
    const payload = new Verifier(hook.secret).verify(post!.body, post!.headers) as { id: string; type: string; data: unknown };
    expect(payload).toMatchObject({ id: eventId, type: 'email.sent', data: SENT });
    expect(sign(hook.secret, 'x', 1, 'y')).toMatch(/^v1,/);
    expect((await webhooks.deliveries(deps, hook.id)).deliveries).toEqual([
      { eventId, type: 'email.sent', attempts: 1, lastStatus: 200, lastAttemptAt: expect.any(String), delivered: true },
    ]);
  });

  it('retries a failure with growing delays, the same id and body, for at least 8 attempts over at least 24 hours', async () => {
    const fails = Array.from({ length: 20 }, () => ({ status: 503 }));
    const { deps, posts, queued, hook } = await owed(fails);
    await sweep(deps);
    const start = deps.clock.now();
    let msg = queued.shift()!;
    for (let i = 0; ; i++) {
      const result = await deliver(deps, msg);
      if (result === 'gave-up') break;
      expect(result).toBe('retry');
      deps.clock.advance(RETRY_DELAYS_MS[i]!);
      deps.wallClock.advance(RETRY_DELAYS_MS[i]!);
      await sweep(deps);
      msg = queued.at(-1)!;
      expect(msg.attempt).toBe(i + 1);
    }
    expect(posts).toHaveLength(MAX_ATTEMPTS);
    expect(MAX_ATTEMPTS).toBeGreaterThanOrEqual(8);
    expect(deps.clock.now() - start).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(new Set(posts.map((p) => p.headers['webhook-id'])).size).toBe(1);
    expect(new Set(posts.map((p) => p.body)).size).toBe(1);
    expect(new Set(posts.map((p) => p.headers['webhook-timestamp'])).size).toBe(posts.length);
    expect((await webhooks.deliveries(deps, hook.id)).deliveries[0]).toMatchObject({
      attempts: MAX_ATTEMPTS,
      lastStatus: 503,
      delivered: false,
    });
    expect((await deps.store.get(deliveryKey(hook.id, msg.eventId)))!.expiresAt).toBe(
      Math.ceil((deps.wallClock.now() + KEEP_ENDED_MS) / 1000),
    );
  });

  it('makes one attempt per attempt number, however many messages name it', async () => {
    const { deps, posts, queued } = await owed();
    await sweep(deps);
    const msg = queued[0]!;
    const results = await Promise.all([deliver(deps, msg), deliver(deps, msg)]);
    expect(results.sort()).toEqual(['delivered', 'skipped']);
    expect(await deliver(deps, msg)).toBe('skipped');
    expect(posts).toHaveLength(1);
  });

  it("keeps an event until it ends, then 30 days for the deliveries list: the table's TTL removes it after", async () => {
    const { deps, queued, hook, eventId } = await owed([{ status: 500 }]);
    const expiresAt = async () => (await deps.store.get(deliveryKey(hook.id, eventId)))!.expiresAt;
    await sweep(deps);
    expect(await deliver(deps, queued.shift()!)).toBe('retry');
    expect(await expiresAt()).toBeUndefined();
    deps.clock.advance(RETRY_DELAYS_MS[0]!);
    deps.wallClock.advance(120_000);
    await sweep(deps);
    expect(await deliver(deps, queued.shift()!)).toBe('delivered');
    expect(await expiresAt()).toBe(Math.ceil((deps.wallClock.now() + KEEP_ENDED_MS) / 1000));
    expect(KEEP_ENDED_MS).toBe(30 * 86_400_000);
  });

  /** Runs `meanwhile` once, right before the worker's claim (the write that sets claimUntil) reaches the table. */
  function beforeClaim(deps: UnitDeps, meanwhile: () => Promise<unknown>) {
    const update = deps.store.update.bind(deps.store);
    let once = true;
    deps.store.update = async (key, change) => {
      if (once && change.set && 'claimUntil' in change.set) {
        once = false;
        await meanwhile();
      }
      return update(key, change);
    };
  }

  it('sends nothing when an erase gives the event up between the worker reading it and claiming it', async () => {
    const s = setup();
    const hook = await webhooks.create(s.deps, { url: 'https://hooks.example.com/x', events: ['*'] });
    await s.deps.store.transact(
      await eventOps(s.deps, 'lead.unsubscribed', { leadId: 'l1', campaignId: 'c1', email: 'ada@x.com' }, 'LEAD#l1#UNSUBSCRIBED'),
    );
    await sweep(s.deps);
    beforeClaim(s.deps, () => eraseLeadEvents(s.deps, 'l1'));
    expect(await deliver(s.deps, s.queued[0]!)).toBe('skipped');
    expect(s.posts).toHaveLength(0);
    expect(await s.deps.store.get(deliveryKey(hook.id, s.queued[0]!.eventId))).toMatchObject({ givenUp: true, attempts: 0 });
  });

  it('sends the body as the claim found it, not as first read (a colleague erased meanwhile)', async () => {
    const s = setup();
    await webhooks.create(s.deps, { url: 'https://hooks.example.com/x', events: ['*'] });
    const data = {
      leadId: 'l1',
      campaignId: 'c1',
      mailboxId: 'm1',
      fromEmail: 'col@x.com',
      subject: 'Re: Hi',
      snippet: 'Ask me instead.',
      receivedAt: '2026-03-02T12:00:00.000Z',
    };
    await s.deps.store.transact(await eventOps(s.deps, 'reply.received', data, 'INBOUND#r1'));
    await sweep(s.deps);
    beforeClaim(s.deps, () => eraseReplySender(s.deps, 'l1', 'INBOUND#r1'));
    expect(await deliver(s.deps, s.queued[0]!)).toBe('delivered');
    expect(s.posts).toHaveLength(1);
    expect(s.posts[0]!.body).not.toMatch(/col@x\.com|Ask me instead/);
    expect(JSON.parse(s.posts[0]!.body).data).toMatchObject({ leadId: 'l1', erased: true, snippet: '' });
  });

  it('counts a redirect as a failure, and drops what a removed webhook was owed', async () => {
    const { deps, queued, hook } = await owed([{ status: 302 }]);
    await sweep(deps);
    expect(await deliver(deps, queued[0]!)).toBe('retry');
    await webhooks.remove(deps, hook.id);
    deps.clock.advance(RETRY_DELAYS_MS[0]!);
    deps.wallClock.advance(120_000);
    await sweep(deps);
    expect(await deliver(deps, queued.at(-1)!)).toBe('dropped');
    expect(await sweep(deps)).toEqual({ queued: 0 });
    expect((await deps.store.get(deliveryKey(hook.id, queued[0]!.eventId)))!.expiresAt).toBeGreaterThan(deps.wallClock.now() / 1000);
  });
});
