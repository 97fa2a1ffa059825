/**
 * The send rules on the unit tier (every port in memory): claims, cadence and
 * the daily cap, retries, suppression at send time, the reply guard, the
 * bounce breaker and the launch check. The same rules run against real
 * servers in test/e2e; here each takes milliseconds.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import * as breaker from '../guardrails/breaker.ts';
import * as suppression from '../suppression/index.ts';
import { leadKey } from '../lead/keys.ts';
import { fromItem as leadFromItem } from '../lead/entity.ts';
import { transition } from '../lead/sequence.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS } from './cadence.ts';
import { getJob } from './jobs.ts';
import { jobId, jobKey } from './keys.ts';
import { HandBack, MAX_SEND_ERRORS, RETRY_MINUTES, SMTP_BUDGET_MS, sendJob } from './sender.ts';
import { refOf } from '../job-kinds.ts';
import { PLAN_CHUNK } from './first-emails.ts';
import { dispatch } from './dispatcher.ts';
import { queryAll } from '../collections.ts';
import { jobsOfCampaign } from './keys.ts';
import * as aiKeys from '../ai-keys/index.ts';

const MINUTE = 60_000;

/** A launched campaign with one mailbox (on a reserved host: never contacted) and these leads. */
async function launched(deps: UnitDeps, emails: string[], opts: { dailyCap?: number; steps?: { waitDays: number; body: string }[] } = {}) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St\nSpringfield' });
  const box = await created(mailboxes.create, deps, {
    email: 'rep@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
    senderName: 'Rep',
    dailyCap: opts.dailyCap ?? 25,
  });
  const c = await created(campaigns.create, deps, {
    name: 'C',
    aiPromptTemplate: 'x',
    subject: 'Hello {{firstName}}',
    template: 'Hi {{firstName}}, a note.',
    mailboxIds: [String(box.id)],
    steps: opts.steps ?? [],
  });
  const ids: string[] = [];
  for (const email of emails) ids.push(String((await created(leads.create, deps, { campaignId: c.id, email, firstName: 'F' })).id));
  await campaigns.launch(deps, String(c.id));
  return { box, campaignId: String(c.id), ids };
}

/** What the dispatcher does before the queue delivers a job: SCHEDULED to QUEUED. */
async function queue(deps: UnitDeps, id: string) {
  const job = (await getJob(deps, id))!;
  await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: Math.min(Number(job.dueAt), deps.clock.now()) } });
}

describe('the one send path, in memory', () => {
  it('claims a job once: a second delivery of its message sends nothing', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['a@client.com']);
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('sent');
    expect(await sendJob(deps, id)).toBe('ignored');
    expect(deps.mailer.sent).toHaveLength(1);
    expect(deps.metrics.counts).toEqual({ EmailsSent: 1 });
    expect(deps.mailer.sent[0]!.email.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(await getJob(deps, id)).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it('spaces one mailbox by the cadence floor plus jitter, and stops at its daily cap until the next day', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['a@client.com', 'b@client.com', 'c@client.com'], { dailyCap: 2 });
    const [a, b, c] = ids.map((l) => jobId(l, 0));
    await queue(deps, a!);
    expect(await sendJob(deps, a!)).toBe('sent');
    await queue(deps, b!);
    // The slot of the first send is not over: it waits.
    expect(await sendJob(deps, b!)).toBe('rescheduled');
    const due = Number((await getJob(deps, b!))!.dueAt);
    expect(due - deps.clock.now()).toBeGreaterThanOrEqual(CADENCE_FLOOR_SECONDS * 1000);
    expect(due - deps.clock.now()).toBeLessThanOrEqual((CADENCE_FLOOR_SECONDS + JITTER_SECONDS) * 1000);
    deps.clock.set(due);
    await queue(deps, b!);
    expect(await sendJob(deps, b!)).toBe('sent');
    // The cap of 2 is reached: the third waits (it is looked at again within the hour), and goes on the next UTC day.
    deps.clock.advance(11 * MINUTE);
    await queue(deps, c!);
    expect(await sendJob(deps, c!)).toBe('rescheduled');
    expect(Number((await getJob(deps, c!))!.dueAt)).toBeLessThanOrEqual(Date.UTC(2026, 2, 3));
    expect(deps.mailer.sent).toHaveLength(2);
    deps.clock.set(Date.UTC(2026, 2, 2, 23, 59));
    await queue(deps, c!);
    expect(await sendJob(deps, c!)).toBe('rescheduled');
    deps.clock.set(Date.UTC(2026, 2, 3, 0, 1));
    await queue(deps, c!);
    expect(await sendJob(deps, c!)).toBe('sent');
  });

  it('retries a temporary failure on the back-off schedule, then fails it; the daily cap gives the try back', async () => {
    const deps = unitDeps();
    const { ids, box } = await launched(deps, ['a@client.com']);
    const id = jobId(ids[0]!, 0);
    for (const minutes of RETRY_MINUTES) {
      deps.mailer.answer({ ok: false, kind: 'temporary', code: 451, detail: 'try later' });
      await queue(deps, id);
      expect(await sendJob(deps, id)).toBe('rescheduled');
      expect(Number((await getJob(deps, id))!.dueAt) - deps.clock.now()).toBe(minutes * MINUTE);
      // Past the retry and past the mailbox's cadence slot (a try books it too).
      deps.clock.advance(Math.max(minutes, 11) * MINUTE);
    }
    deps.mailer.answer({ ok: false, kind: 'temporary', code: 451, detail: 'try later' });
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('failed');
    expect(await getJob(deps, id)).toMatchObject({ state: 'FAILED', lastError: 'temporary 451', attempts: RETRY_MINUTES.length + 1 });
    const sentToday = await deps.store.query({ pk: `MAILBOX#${box.id}`, skBeginsWith: 'SENT#' });
    expect(sentToday.items.reduce((n, d) => n + Number(d.count), 0)).toBe(0);
  });

  it('logs a server refusal without the address it quotes', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['quoted@client.com']);
    const id = jobId(ids[0]!, 0);
    deps.mailer.answer({
      ok: false,
      kind: 'permanent',
      code: 550,
      detail: '550 5.1.1 <quoted@client.com>: Recipient address rejected: User unknown',
    });
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('bounced');
    expect(deps.metrics.counts).toEqual({ Bounces: 1 });
    const line = deps.logs.find((l) => l.msg === 'send failed')!;
    expect(line.detail).toBe('550 5.1.1 <<address>>: Recipient address rejected: User unknown');
    expect(JSON.stringify(deps.logs)).not.toContain('quoted@client.com');
    // The lead row shows why, in the reason table a bounce notice is read by, without the address.
    expect((await leads.get(deps, ids[0]!)).bounce).toMatchObject({
      status: '5.1.1',
      reason: 'user-unknown',
      hard: true,
      via: 'smtp',
      confirmed: true,
    });
    expect(JSON.stringify((await leads.get(deps, ids[0]!)).bounce)).not.toContain('quoted@client.com');
  });

  it('a 5xx for a cause that is not the address (a full mailbox, the sending host on a blocklist) is tried again, never a bounce', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['full@client.com']);
    const id = jobId(ids[0]!, 0);
    deps.mailer.answer(
      { ok: false, kind: 'permanent', code: 552, detail: '552 5.2.2 <full@client.com>: Mailbox full' },
      {
        ok: false,
        kind: 'permanent',
        code: 554,
        detail: '554 5.7.1 Service unavailable; Client host [192.0.2.7] blocked using zen.spamhaus.org',
      },
    );
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('rescheduled');
    expect(await getJob(deps, id)).toMatchObject({ state: 'SCHEDULED', lastError: 'permanent 552 (mailbox-full)' });
    deps.clock.advance(11 * MINUTE);
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('rescheduled');
    expect(await getJob(deps, id)).toMatchObject({ state: 'SCHEDULED', lastError: 'permanent 554 (reputation)' });
    expect((await deps.store.get(leadKey(ids[0]!)))!.status).toBe('NEW');
    expect(await suppression.isSuppressed(deps, 'full@client.com')).toBe(false);
    expect(deps.metrics.counts.Bounces).toBeUndefined();
  });

  it('refuses at send time an address suppressed while its email was queued, and ends the lead', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['gone@client.com']);
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    await suppression.suppress(deps, 'gone@client.com', 'unsubscribe');
    expect(await sendJob(deps, id)).toBe('cancelled');
    expect(deps.mailer.sent).toHaveLength(0);
    expect((await deps.store.get(leadKey(ids[0]!)))!.status).toBe('SUPPRESSED');
  });

  it('a reply recorded while the follow-up was being written, before its claim, cancels it in the claim', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['ann@client.com'], { steps: [{ waitDays: 1, body: 'Bumping this.' }] });
    const first = jobId(ids[0]!, 0);
    await queue(deps, first);
    expect(await sendJob(deps, first)).toBe('sent');
    deps.clock.advance(2 * 24 * 60 * MINUTE);
    const followUp = jobId(ids[0]!, 1);
    await queue(deps, followUp);
    // The reply lands in the narrowest window: after the send read the lead, right before its claim.
    const transact = deps.store.transact.bind(deps.store);
    deps.store.transact = async (ops) => {
      if (ops.some((op) => 'update' in op && op.change.set?.state === 'CLAIMED'))
        await transition(deps, leadFromItem((await deps.store.get(leadKey(ids[0]!)))!), 'REPLIED');
      await transact(ops);
    };
    expect(await sendJob(deps, followUp)).toBe('cancelled');
    expect(deps.mailer.sent).toHaveLength(1);
  });

  it('a mailbox that cannot sign in shows ERROR and the job waits', async () => {
    const deps = unitDeps();
    const { ids, box } = await launched(deps, ['a@client.com']);
    await deps.store.update(mailboxKey(String(box.id)), { remove: ['sealedPassword'] });
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('rescheduled');
    expect(await deps.store.get(mailboxKey(String(box.id)))).toMatchObject({
      status: 'ERROR',
      lastError: 'The mailbox has no password to sign in with.',
    });
    expect(deps.mailer.sent).toHaveLength(0);
  });
});

describe('the cost and bounds of a send, in memory', () => {
  const requests = (deps: UnitDeps) => Object.values(deps.store.requests).reduce((a, b) => a + b, 0);

  it('sends with at most 4 store requests and no KMS call once the mailbox secret is open', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['a@client.com', 'b@client.com'], { steps: [{ waitDays: 2, body: 'Bumping this.' }] });
    const [a, b] = ids.map((l) => jobId(l, 0));
    // A first send opens the mailbox's password (KMS) and the installation's unsubscribe key.
    await queue(deps, a!);
    const firstRef = refOf((await getJob(deps, a!))!);
    deps.store.reset();
    expect(await sendJob(deps, a!, { ref: firstRef })).toBe('sent');
    // The planner named the mailbox's domain on the job, so even the first send reads it in its one batch
    // (what else it reads once per process is the installation's unsubscribe key, made here by this first send).
    expect(deps.store.requests.batchGet).toBe(1);
    deps.clock.advance(11 * MINUTE);
    await queue(deps, b!);
    const ref = refOf((await getJob(deps, b!))!);
    deps.store.reset();
    const kmsBefore = deps.keys.calls;
    expect(await sendJob(deps, b!, { ref })).toBe('sent');
    // One batch read, the claim (with the lead's guard), the start of SMTP, the record (with the follow-up planned in it).
    expect(deps.store.requests).toMatchObject({ batchGet: 1, transact: 2, update: 1, get: 0, query: 0, put: 0 });
    expect(requests(deps)).toBe(4);
    expect(deps.keys.calls).toBe(kmsBefore);
    expect(await getJob(deps, jobId(ids[1]!, 1))).toMatchObject({ state: 'SCHEDULED', mailboxId: ref.mailboxId, domainId: ref.domainId });
    expect(ref.domainId).toBeTypeOf('string');
    expect((await deps.store.get(leadKey(ids[1]!)))!.status).toBe('CONTACTED');
  });

  it('hands a job back untouched when the caller has too little time left', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, ['a@client.com']);
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    const before = await getJob(deps, id);
    deps.store.reset();
    await expect(sendJob(deps, id, { timeLeft: () => SMTP_BUDGET_MS - 1 })).rejects.toBeInstanceOf(HandBack);
    expect(deps.store.requests).toMatchObject({ transact: 0, update: 0, put: 0 });
    expect(await getJob(deps, id)).toEqual(before);
    expect(deps.mailer.sent).toHaveLength(0);
    expect(await sendJob(deps, id, { timeLeft: () => SMTP_BUDGET_MS + 1 })).toBe('sent');
  });

  it('records a send as SENT when the store fails right after the SMTP answer', async () => {
    const deps = unitDeps();
    const { ids, campaignId } = await launched(deps, ['a@client.com']);
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    const transact = deps.store.transact.bind(deps.store);
    let failures = 2;
    deps.store.transact = async (ops) => {
      if (deps.mailer.sent.length && failures > 0 && ops.some((op) => 'update' in op && op.change.set?.state === 'SENT')) {
        failures--;
        throw new Error('the store is unreachable');
      }
      return transact(ops);
    };
    expect(await sendJob(deps, id)).toBe('sent');
    expect(failures).toBe(0);
    expect(await getJob(deps, id)).toMatchObject({ state: 'SENT' });
    expect((await campaigns.get(deps, campaignId)).sentCount).toBe(1);
  });

  it('queues the acceptance when the store stays down after the SMTP answer, and records it as SENT from the queue', async () => {
    const deps = unitDeps();
    const { ids, campaignId } = await launched(deps, ['a@client.com']);
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    const transact = deps.store.transact.bind(deps.store);
    let down = true;
    deps.store.transact = async (ops) => {
      if (down && ops.some((op) => 'update' in op && op.change.set?.state === 'SENT')) throw new Error('the store is unreachable');
      return transact(ops);
    };
    expect(await sendJob(deps, id)).toBe('sent');
    expect((await getJob(deps, id))!.state).toBe('CLAIMED');
    const note = deps.queued.find((m) => m.jobId === id && m.accepted)!;
    expect(note).toBeDefined();
    down = false;
    expect(await sendJob(deps, id, { accepted: note.accepted })).toBe('sent');
    expect(await getJob(deps, id)).toMatchObject({ state: 'SENT' });
    expect((await campaigns.get(deps, campaignId)).sentCount).toBe(1);
    // The note again (a redelivery) changes nothing.
    expect(await sendJob(deps, id, { accepted: note.accepted })).toBe('ignored');
    expect(deps.mailer.sent).toHaveLength(1);
  });

  it('fails a job whose send keeps throwing after a bounded number of tries, with the reason', async () => {
    const deps = unitDeps();
    const { ids, box } = await launched(deps, ['a@client.com']);
    // A password sealed under another context: it can never be opened.
    const other = await deps.store.get(mailboxKey(String(box.id)));
    await deps.store.update(mailboxKey(String(box.id)), {
      set: { sealedPassword: String(other!.sealedPassword).replace(/\.[^.]+$/, '.AAAA') },
    });
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    for (let i = 1; i < MAX_SEND_ERRORS; i++) {
      await expect(sendJob(deps, id)).rejects.toThrow();
      expect(await getJob(deps, id)).toMatchObject({ state: 'QUEUED', sendErrors: i });
    }
    await expect(sendJob(deps, id)).rejects.toThrow();
    const job = (await getJob(deps, id))!;
    expect(job.state).toBe('FAILED');
    expect(String(job.lastError)).toMatch(new RegExp(`^gave up after ${MAX_SEND_ERRORS} failed tries: `));
    expect(deps.metrics.counts.SendErrors).toBe(MAX_SEND_ERRORS);
    expect(deps.mailer.sent).toHaveLength(0);
  });

  it('keeps AI copy with the job: a retry after a lost slot does not call the provider again', async () => {
    let calls = 0;
    const deps = unitDeps({
      ai: {
        write: async () => `Written for you, call ${++calls}.`,
        choose: async () => {
          throw new Error('not asked here');
        },
      },
    });
    await aiKeys.put(deps, 'openai', { apiKey: 'sk-test-1234567890' });
    const { ids, box, campaignId } = await launched(deps, ['a@client.com']);
    await campaigns.update(deps, campaignId, { aiProvider: 'OPENAI' });
    const id = jobId(ids[0]!, 0);
    await queue(deps, id);
    // Another sender books the mailbox's slot between this send's read and its claim.
    const transact = deps.store.transact.bind(deps.store);
    let raced = false;
    deps.store.transact = async (ops) => {
      if (!raced && ops.some((op) => 'update' in op && op.change.set?.state === 'CLAIMED')) {
        raced = true;
        await deps.store.update(mailboxKey(String(box.id)), { set: { nextSlotAt: deps.clock.now() + MINUTE } });
      }
      return transact(ops);
    };
    expect(await sendJob(deps, id)).toBe('rescheduled');
    expect(calls).toBe(1);
    expect((await getJob(deps, id))!.aiBody).toBe('Written for you, call 1.');
    deps.clock.advance(2 * MINUTE);
    await queue(deps, id);
    expect(await sendJob(deps, id)).toBe('sent');
    expect(calls).toBe(1);
    expect(deps.mailer.sent[0]!.email.text).toContain('Written for you, call 1.');
    expect((await getJob(deps, id))!.aiBody).toBeUndefined();
  });
});

describe('the bounce breaker, in memory', () => {
  it('trips a pair only after 20 sends, once its rate passes the threshold, and resumes with a fresh window', async () => {
    const deps = unitDeps();
    const { box, campaignId } = await launched(deps, []);
    const mailboxId = String(box.id);
    for (let i = 0; i < 19; i++) await breaker.recordSend(deps, campaignId, mailboxId);
    expect(await breaker.recordBounce(deps, campaignId, mailboxId)).toBe(false);
    expect(await breaker.recordBounce(deps, campaignId, mailboxId)).toBe(false);
    // The 20th send: 2 of 20 is 10 %, over 5 %.
    expect(await breaker.recordSend(deps, campaignId, mailboxId)).toBe(true);
    expect(deps.metrics.counts.BreakerTrips).toBe(1);
    expect(await breaker.isTripped(deps, campaignId, mailboxId)).toBe(true);
    expect(await campaigns.get(deps, campaignId)).toMatchObject({ pausedForBounceRate: true });
    await breaker.resume(deps, campaignId);
    expect(await breaker.isTripped(deps, campaignId, mailboxId)).toBe(false);
    expect(await breaker.recordSend(deps, campaignId, mailboxId)).toBe(false);
  });

  it('stays closed at exactly the threshold (5 % is not over 5 %)', async () => {
    const deps = unitDeps();
    const { box, campaignId } = await launched(deps, []);
    for (let i = 0; i < 40; i++) await breaker.recordSend(deps, campaignId, String(box.id));
    await breaker.recordBounce(deps, campaignId, String(box.id));
    expect(await breaker.recordBounce(deps, campaignId, String(box.id))).toBe(false);
  });
});

describe('a launch at scale, in memory', () => {
  it('answers after planning one chunk, shows the planning in progress, and the dispatcher plans the rest', async () => {
    const deps = unitDeps();
    const emails = Array.from({ length: PLAN_CHUNK * 2 + 100 }, (_, i) => `l${i}@client.com`);
    const { campaignId } = await launched(deps, [], {});
    await campaigns.setStatus(deps, campaignId, 'PAUSED');
    for (const email of emails) await leads.create(deps, { campaignId, email });
    deps.store.reset();
    await campaigns.launch(deps, campaignId);
    // One chunk planned, 40 jobs to a write: the launch does not grow with the campaign.
    expect(deps.store.requests.transact).toBeLessThanOrEqual(Math.ceil(PLAN_CHUNK / 40));
    const progress = async () => (await campaigns.list(deps)).find((c) => (c as { id?: unknown }).id === campaignId)!.progress;
    expect(await progress()).toMatchObject({ total: emails.length, planned: PLAN_CHUNK, planning: true });
    await dispatch(deps);
    await dispatch(deps);
    expect(await progress()).toMatchObject({ planned: emails.length, planning: false });
    const jobs = await queryAll(deps.store, jobsOfCampaign(campaignId));
    expect(jobs.filter((j) => Number(j.step) === 0)).toHaveLength(emails.length);
  });
});

describe('the launch check, in memory', () => {
  it('lists every problem at once: no senders, a domain without an address, an empty step', async () => {
    const deps = unitDeps();
    const domain = await created(domains.create, deps, { domainName: 'noaddr.com' });
    const box = await created(mailboxes.create, deps, {
      email: 'x@noaddr.com',
      domainId: domain.id,
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
    });
    const c = await created(campaigns.create, deps, {
      name: 'C',
      aiPromptTemplate: 'x',
      subject: 'Hi',
      template: 'Body',
      mailboxIds: [String(box.id)],
      steps: [{ waitDays: 2 }],
    });
    const check = await campaigns.launchCheck(deps, String(c.id));
    expect(check.canLaunch).toBe(false);
    expect(check.problems.map((p: { code: string }) => p.code).sort()).toEqual(['DOMAIN_NO_ADDRESS', 'STEP_EMPTY']);
    await mailboxes.update(deps, { id: String(box.id), status: 'PAUSED' });
    const paused = await campaigns.launchCheck(deps, String(c.id));
    expect(paused.problems.map((p: { code: string }) => p.code)).toContain('NO_SENDERS');
  });
});
