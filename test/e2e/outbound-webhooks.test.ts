/**
 * Outbound webhooks end to end (docs/webhooks.md): a receiver on loopback,
 * the engine's own queue and schedules, signatures checked with the
 * Standard Webhooks reference library as a receiver would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as Verifier } from 'standardwebhooks';
import { writeEvent } from '@outbound/core/webhooks/events';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { eventually, smtpMailbox } from '../helpers/fixtures.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startReceiver, type Received } from '../helpers/webhook-receiver.ts';
import { waitFor } from '../helpers/wait-for.ts';

const HOUR = 3600_000;
const ADDRESS = '1 Main St\nSpringfield, IL 62701\nUSA';
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type Event = { id: string; type: string; createdAt: string; data: Record<string, unknown> };

const verified = (secret: string, r: Received) => new Verifier(secret).verify(r.body, r.headers) as Event;

/** For one describe: an SMTP server with `user`, a webhook receiver, and an engine where a day of engine time is under two seconds. */
function sendingStack(user: string) {
  const stack = {} as { smtp: TestSmtpServer; engine: TestEngine; receiver: Receiver };
  beforeAll(async () => {
    stack.smtp = await startSmtpServer({ users: { [user]: 'sales-password' } });
    stack.receiver = await startReceiver();
    stack.engine = await startTestEngine({ realTime: true, timeScale: 50_000 });
    await stack.engine.api.login();
  });
  afterAll(async () => {
    await stack.engine?.stop();
    await stack.smtp?.stop();
    await stack.receiver?.stop();
  });
  return stack;
}

describe('the webhooks API', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await startTestEngine();
    await engine.api.login();
  });
  afterAll(() => engine?.stop());

  it('shows the secret once, lists without it, refuses bad targets with a sentence, and removes', async () => {
    const api = engine.api;
    const made = await api.request('POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/in',
      events: ['email.sent', 'reply.received'],
    });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await api.request('GET', '/v1/webhooks');
    expect(listed.body).toEqual({
      webhooks: [
        { id: made.body.id, url: 'https://hooks.example.com/in', events: ['email.sent', 'reply.received'], createdAt: made.body.createdAt },
      ],
    });
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    const refused = await api.request('POST', '/v1/webhooks', { url: 'http://hooks.example.com/in', events: ['*'] });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/^url: must start with https:\/\//);
    expect((await api.request('POST', '/v1/webhooks', { url: 'https://hooks.example.com/in', events: ['email.opened'] })).status).toBe(422);
    expect((await api.request('POST', '/v1/webhooks', { url: 'https://hooks.example.com/in' })).body.error).toBe('events is required.');

    expect((await api.request('GET', `/v1/webhooks/${made.body.id}/deliveries`)).body).toEqual({ deliveries: [] });
    expect((await api.request('DELETE', `/v1/webhooks/${made.body.id}`)).status).toBe(204);
    expect((await api.request('DELETE', `/v1/webhooks/${made.body.id}`)).status).toBe(404);
    expect((await api.request('GET', `/v1/webhooks/${made.body.id}/deliveries`)).status).toBe(404);
    api.token = undefined;
    expect((await api.request('GET', '/v1/webhooks')).status).toBe(401);
    await api.login();
  });
});

describe('events of a sending campaign', { timeout: 90_000 }, () => {
  const stack = sendingStack('sales@hooks.com');

  it('two emails give two email.sent, signed; a subscription to one type gets only that type', async () => {
    const { engine, receiver, smtp } = stack;
    const api = engine.api;
    const all = (await api.request('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] })).body;
    const pausedOnly = (await api.request('POST', '/v1/webhooks', { url: receiver.url + '?only=paused', events: ['campaign.paused'] }))
      .body;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'hooks.com', mailingAddress: ADDRESS })).body;
    const box = await smtpMailbox(api, domain, 'sales', smtp);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Hooks',
        aiPromptTemplate: 'unused',
        subject: 'Hi {{firstName}}',
        template: 'Hi {{firstName}}, a question.',
        mailboxIds: [box.id],
      })
    ).body;
    for (const [email, firstName] of [
      ['ann@lead.test', 'Ann'],
      ['ben@lead.test', 'Ben'],
    ]) {
      const res = await api.request('POST', '/v1/leads', { campaignId: campaign.id, email, firstName });
      // A refusal says why, with what the engine logged as an error.
      expect(res.status, JSON.stringify({ body: res.body, errors: engine.logs.filter((l) => l.level === 'error') })).toBe(201);
    }
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);
    const toAll = (type: string) =>
      receiver.received.filter((r) => r.answered === 200 && verifiesWith(all.secret, r) && verified(all.secret, r).type === type);
    const sent = await eventually(
      async () => (toAll('email.sent').length >= 2 ? toAll('email.sent') : undefined),
      30_000,
      'two email.sent',
    );
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/pause`)).status).toBe(200);

    const events = sent.map((r) => verified(all.secret, r));
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
    expect(events.map((e) => e.data.leadId).sort()).toEqual(
      ((await api.request('GET', `/v1/leads?campaignId=${campaign.id}`)).body.leads as { id: string }[]).map((l) => l.id).sort(),
    );
    for (const e of events) {
      expect(e.type).toBe('email.sent');
      expect(e.data).toMatchObject({
        campaignId: campaign.id,
        mailboxId: box.id,
        step: 0,
        messageId: expect.stringMatching(/@hooks\.com$/),
        sentAt: expect.any(String),
      });
    }
    // A signature made with another secret does not verify.
    expect(() => new Verifier(pausedOnly.secret).verify(sent[0]!.body, sent[0]!.headers)).toThrow();

    const onlyPaused = () => receiver.received.filter((r) => r.answered === 200 && verifiesWith(pausedOnly.secret, r));
    const paused = await eventually(
      async () => (onlyPaused().length >= 1 ? onlyPaused() : undefined),
      30_000,
      'campaign.paused to the one-type webhook',
    );
    expect(paused.map((r) => verified(pausedOnly.secret, r).type)).toEqual(['campaign.paused']);
    expect(verified(pausedOnly.secret, paused[0]!).data).toEqual({ campaignId: campaign.id, reason: 'manual' });
    await eventually(async () => toAll('campaign.paused').length === 1 || undefined, 30_000, 'campaign.paused to the * webhook');
    // Settled: the one-type webhook got nothing else, and each email one event.
    expect(onlyPaused()).toHaveLength(1);
    expect(new Set(toAll('email.sent').map((r) => r.headers['webhook-id'])).size).toBe(2);
    // The record of an attempt is written once the receiver's answer is in: the receiver has the last event before it.
    const deliveries = await waitFor(
      async () => {
        const list = (await api.request('GET', `/v1/webhooks/${all.id}/deliveries`)).body.deliveries as {
          type: string;
          delivered: boolean;
          attempts: number;
        }[];
        return list.length >= 3 && list.every((d) => d.delivered) && list;
      },
      { timeoutMs: 20_000, describe: 'the three deliveries to the * webhook recorded as delivered' },
    );
    expect(deliveries.map((d) => d.type).sort()).toEqual(['campaign.paused', 'email.sent', 'email.sent']);
    expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
  });
});

function header(raw: string, name: string): string | undefined {
  const line = raw.split(/\r?\n(?=\S)/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line
    ?.slice(name.length + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
}

function verifiesWith(secret: string, r: Received): boolean {
  try {
    new Verifier(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
}

describe('events of leads', { timeout: 150_000 }, () => {
  const stack = sendingStack('sales@leads.com');

  it('an unsubscribe clicked twice gives one lead.unsubscribed', async () => {
    const { engine, receiver, smtp } = stack;
    const api = engine.api;
    const hook = (await api.request('POST', '/v1/webhooks', { url: receiver.url, events: ['lead.unsubscribed'] })).body;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'leads.com', mailingAddress: ADDRESS })).body;
    const box = await smtpMailbox(api, domain, 'sales', smtp);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Unsub',
        aiPromptTemplate: 'unused',
        subject: 'Hi',
        template: 'Hi {{firstName}}.',
        mailboxIds: [box.id],
        steps: [{ waitDays: 3, body: 'Again.' }],
      })
    ).body;
    const lead = (await api.request('POST', '/v1/leads', { campaignId: campaign.id, email: 'cat@lead.test', firstName: 'Cat' })).body;
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);
    const [mail] = await smtp.waitFor(1, 30_000);
    const link = /<([^>]+)>/.exec(header(mail!.raw, 'List-Unsubscribe')!)![1]!;
    for (let i = 0; i < 2; i++) {
      const click = await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(click.status).toBe(200);
    }
    // Up to a minute: beside the crash test on two cores this once took over 30 s (not reproduced alone or beside busy
    // loops); a timeout says what the receiver got and what the engine logged about webhooks.
    const got = await eventually(async () => receiver.received.find((r) => r.answered === 200), 60_000, 'lead.unsubscribed').catch(
      async (err: Error) => {
        const logged = engine.logs.filter((l) => l.level !== 'info' && /webhook/i.test(String(l.msg)));
        // Whether the event was written at all (no delivery: the fact's transaction saw no subscription) or is waiting in the outbox.
        const deliveries = (await api.request('GET', `/v1/webhooks/${hook.id}/deliveries`)).body;
        throw new Error(
          `${err.message}; the receiver answered ${JSON.stringify(receiver.received.map((r) => r.answered))}; deliveries ${JSON.stringify(deliveries)}; logged ${JSON.stringify(logged).slice(0, 2000)}`,
        );
      },
    );
    expect(verified(hook.secret, got)).toMatchObject({
      type: 'lead.unsubscribed',
      data: { leadId: lead.id, campaignId: campaign.id, email: 'cat@lead.test' },
    });
    // Settled: one event for the one fact.
    await eventually(
      async () => (await api.request('GET', `/v1/webhooks/${hook.id}/deliveries`)).body.deliveries[0]?.delivered || undefined,
      20_000,
      'the delivery recorded',
    );
    expect((await api.request('GET', `/v1/webhooks/${hook.id}/deliveries`)).body.deliveries).toHaveLength(1);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });
});

describe('delivery through failures', { timeout: 120_000 }, () => {
  // The wall clock is in the test's hands and the engine runs 1,000 times faster: a day of engine time is 86.4 s of it.
  const SCALE = 1000;
  let engine: TestEngine;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    engine = await startTestEngine({ timeScale: SCALE });
    await engine.api.login();
  });
  afterAll(async () => {
    await engine?.stop();
    await receiver?.stop();
  });

  const advance = (engineMs: number) => engine.wallClock.advance(engineMs / SCALE);
  const event = (n: number) =>
    writeEvent(
      engine.deps,
      'email.complained',
      { leadId: `lead-${n}`, campaignId: 'c', email: `p${n}@lead.test` },
      `TEST#${n}#${Math.random()}`,
    );

  it('a receiver that fails 3 times gets the event on the 4th attempt, with the same id and body', async () => {
    const hook = (await engine.api.request('POST', '/v1/webhooks', { url: receiver.url, events: ['email.complained'] })).body;
    receiver.answer = ({ count }) => (count < 3 ? 500 : 200);
    await event(1);
    const got = await eventually(
      async () => {
        const ok = receiver.received.find((r) => r.answered === 200);
        if (!ok) advance(10 * 60_000);
        return ok;
      },
      60_000,
      'the 4th attempt',
    );
    const tries = receiver.received.filter((r) => r.headers['webhook-id'] === got.headers['webhook-id']);
    expect(tries.map((r) => r.answered)).toEqual([500, 500, 500, 200]);
    expect(new Set(tries.map((r) => r.body)).size).toBe(1);
    for (const r of tries) expect(verified(hook.secret, r).id).toBe(got.headers['webhook-id']);
    const d = await eventually(
      async () =>
        (await engine.api.request('GET', `/v1/webhooks/${hook.id}/deliveries`)).body.deliveries.find(
          (x: { delivered: boolean }) => x.delivered,
        ),
      20_000,
      'the delivery recorded',
    );
    expect(d).toMatchObject({
      eventId: got.headers['webhook-id'],
      type: 'email.complained',
      attempts: 4,
      lastStatus: 200,
      delivered: true,
    });
    await engine.api.request('DELETE', `/v1/webhooks/${hook.id}`);
  });

  it('a receiver down for a day of engine time gets every event afterwards', async () => {
    receiver.received.length = 0;
    const hook = (await engine.api.request('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] })).body;
    const start = engine.deps.clock.now();
    const up = () => engine.deps.clock.now() >= start + 24 * HOUR;
    receiver.answer = () => (up() ? 200 : 503);
    for (let n = 0; n < 5; n++) await event(100 + n);
    const failures = (id: string | undefined) =>
      receiver.received.filter((r) => r.headers['webhook-id'] === id && r.answered === 503).length;
    // Retried through the day, not just once at each end of it: three failed attempts of each event (at once, then 30 s
    // and 2 min later by the engine clock) while the day is young. The clock moves on only while they are awaited, so a
    // worker slowed by a loaded machine still makes them before the receiver is up (a fixed pace of 150 ms an hour
    // left the three attempts to the worker's speed).
    const ids = await waitFor(
      () => {
        const seen = new Set(receiver.received.map((r) => r.headers['webhook-id']));
        if (seen.size === 5 && [...seen].every((id) => failures(id) >= 3)) return seen;
        if (engine.deps.clock.now() < start + 6 * HOUR) advance(5 * 60_000);
        return undefined;
      },
      {
        timeoutMs: 60_000,
        describe: 'three failed attempts of each of the five events',
        lastSeen: () =>
          `the receiver got (webhook-id answered):\n${receiver.received.map((r) => `${r.headers['webhook-id']} ${r.answered}`).join('\n')}`,
      },
    );
    expect(ids.size).toBe(5);
    for (const id of ids) expect(failures(id)).toBeGreaterThanOrEqual(3);
    // The rest of the day passes an hour at a time, with a moment for the worker to try what is due (nothing above
    // depends on how much it manages).
    while (!up()) {
      advance(HOUR);
      await new Promise((r) => setTimeout(r, 150));
    }
    const delivered = () => new Set(receiver.received.filter((r) => r.answered === 200).map((r) => r.headers['webhook-id']));
    await eventually(
      async () => {
        if (delivered().size === 5) return true;
        advance(HOUR);
        return undefined;
      },
      90_000,
      'every event after the day down',
    );
    expect(delivered()).toEqual(ids);
    for (const r of receiver.received) expect(verified(hook.secret, r).type).toBe('email.complained');
    // The record of an attempt is written once its answer is in.
    const deliveries = await eventually(
      async () => {
        const list = (await engine.api.request('GET', `/v1/webhooks/${hook.id}/deliveries`)).body.deliveries as {
          delivered: boolean;
          attempts: number;
        }[];
        return list.every((d) => d.delivered) && list;
      },
      20_000,
      'the deliveries recorded',
    );
    expect(deliveries).toHaveLength(5);
    for (const d of deliveries) expect(d.attempts).toBeGreaterThanOrEqual(4);
  });
});
