/**
 * Sending windows on the send path, in memory: the first-email plan, a job
 * claimed outside its window, the Date of what goes, and a follow-up's wait.
 */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { isOpen } from '../schedule/window.ts';
import { getJob } from './jobs.ts';
import { applyMessages } from '../inbound/apply.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { refOf } from '../job-kinds.ts';
import { jobId, jobKey } from './keys.ts';
import { sendJob } from './sender.ts';
import { CADENCE_FLOOR_SECONDS, JITTER_SECONDS } from './cadence.ts';
import { dueTime, sendWindow } from './due.ts';

const HOUR = 3_600_000;
// The unit clock starts on Monday 2026-03-02 09:00 UTC: 10:00 in Berlin, 04:00 in New York, 14:45 in Kathmandu.
const MON_0900_UTC = Date.UTC(2026, 2, 2, 9);
const WINDOW = { days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const, start: '09:00', end: '17:00' };
const schedule = { timezone: 'Europe/Berlin', ...WINDOW, days: [...WINDOW.days] };

async function launched(deps: UnitDeps, people: Record<string, Record<string, string>>, steps: { waitDays: number; body: string }[] = []) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St\nSpringfield' });
  const box = await created(mailboxes.create, deps, {
    email: 'rep@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
    dailyCap: 100,
  });
  const c = await created(campaigns.create, deps, {
    name: 'C',
    aiPromptTemplate: 'x',
    subject: 'Hello',
    template: 'Hi, a note.',
    mailboxIds: [String(box.id)],
    steps,
    schedule,
  });
  const ids: Record<string, string> = {};
  for (const [email, customFields] of Object.entries(people))
    ids[email] = String((await created(leads.create, deps, { campaignId: c.id, email, customFields })).id);
  await campaigns.launch(deps, String(c.id));
  return { campaignId: String(c.id), ids };
}

/** The dispatcher's move, forced: queued now whatever its due time (a message delivered late, a backlog). */
async function queueNow(deps: UnitDeps, id: string) {
  await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
}

describe('sending windows on the send path', () => {
  it("dueTime waits for the next opening in the lead's zone, and is the wanted time inside the window", () => {
    const ny = sendWindow(schedule, { timezone: 'America/New_York' })!;
    expect(ny).toMatchObject({ timezone: 'America/New_York', timezoneSource: 'lead' });
    expect(dueTime(MON_0900_UTC, MON_0900_UTC, ny)).toBe(Date.UTC(2026, 2, 2, 14));
    expect(dueTime(MON_0900_UTC - HOUR, MON_0900_UTC, sendWindow(schedule, {}))).toBe(MON_0900_UTC);
    expect(dueTime(MON_0900_UTC + HOUR, MON_0900_UTC, undefined)).toBe(MON_0900_UTC + HOUR);
  });

  it("plans each first email into its lead's window, and a job claimed outside it waits for the opening and then goes, dated by the engine clock", async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, {
      'ny@client.com': { timezone: 'America/New_York' },
      'ktm@client.com': { timezone: 'Asia/Kathmandu' },
    });
    const ny = jobId(ids['ny@client.com']!, 0);
    const ktm = jobId(ids['ktm@client.com']!, 0);
    expect((await getJob(deps, ny))!.dueAt).toBe(Date.UTC(2026, 2, 2, 14));
    const ktmDue = (await getJob(deps, ktm))!.dueAt;
    expect(isOpen(WINDOW, 'Asia/Kathmandu', ktmDue)).toBe(true);

    // Claimed at 04:00 in New York: not sent, due at 09:00 there, nothing dropped.
    await queueNow(deps, ny);
    expect(await sendJob(deps, ny)).toBe('rescheduled');
    expect(deps.mailer.sent).toHaveLength(0);
    expect(await getJob(deps, ny)).toMatchObject({ state: 'SCHEDULED', dueAt: Date.UTC(2026, 2, 2, 14) });

    deps.clock.set(Date.UTC(2026, 2, 2, 14, 5));
    await queueNow(deps, ny);
    expect(await sendJob(deps, ny)).toBe('sent');
    expect(deps.mailer.sent[0]!.email.date).toBe(deps.clock.now());
    expect(isOpen(WINDOW, 'America/New_York', deps.mailer.sent[0]!.email.date!)).toBe(true);

    // Kathmandu closes at 17:00 (11:15 UTC): a job of it claimed at 22:00 there waits for Tuesday 09:00 (03:15 UTC).
    deps.clock.set(Date.UTC(2026, 2, 2, 16, 15));
    await queueNow(deps, ktm);
    expect(await sendJob(deps, ktm)).toBe('rescheduled');
    expect((await getJob(deps, ktm))!.dueAt).toBe(Date.UTC(2026, 2, 3, 3, 15));
  });

  it("spaces one mailbox's first emails after a window's opening as it would have at any hour, and leaves an open zone's leads where they were", async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, {
      'a@client.com': { timezone: 'America/New_York' },
      'b@client.com': { timezone: 'America/New_York' },
      'c@client.com': { timezone: 'Europe/Berlin' },
      'd@client.com': { timezone: 'America/New_York' },
    });
    const due = async (email: string) => (await getJob(deps, jobId(ids[email]!, 0)))!.dueAt;
    const spacing = (CADENCE_FLOOR_SECONDS + JITTER_SECONDS / 2) * 1000;
    const opening = Date.UTC(2026, 2, 2, 14);
    const ny = [await due('a@client.com'), await due('b@client.com'), await due('d@client.com')].sort((x, y) => x - y);
    expect(ny).toEqual([opening, opening + spacing, opening + 2 * spacing]);
    // Berlin is open: it keeps its slot, one of the mailbox's first four turns this morning.
    expect([0, 1, 2, 3].map((k) => MON_0900_UTC + k * spacing)).toContain(await due('c@client.com'));
  });

  it("a follow-up waits its waitDays from the send before it, then for the window (Friday + 1 day: Monday's opening)", async () => {
    const deps = unitDeps();
    const friday1500Berlin = Date.UTC(2026, 2, 6, 14);
    deps.clock.set(friday1500Berlin);
    const { ids } = await launched(deps, { 'de@client.com': { country: 'Germany' } }, [{ waitDays: 1, body: 'Following up.' }]);
    const first = jobId(ids['de@client.com']!, 0);
    await queueNow(deps, first);
    expect(await sendJob(deps, first)).toBe('sent');
    const sentAt = deps.clock.now();
    const next = (await getJob(deps, jobId(ids['de@client.com']!, 1)))!;
    // Saturday is not a sending day: Monday 09:00 in Berlin (CET), 08:00 UTC.
    expect(next.dueAt).toBe(Date.UTC(2026, 2, 9, 8));
    expect(next.dueAt).toBeGreaterThanOrEqual(sentAt + 86_400_000);
  });

  it("a send tried again later (a 4xx at 16:58) and a step held for an out-of-office answer wait for the lead's window, not only the claim", async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, { 'ber@client.com': {} }, [{ waitDays: 1, body: 'Bump.' }]);
    const id = jobId(ids['ber@client.com']!, 0);
    // Monday 16:58 in Berlin: the server says "try later"; five minutes on the window is closed, so Tuesday 09:00 (08:00 UTC).
    deps.clock.set(Date.UTC(2026, 2, 2, 15, 58));
    await queueNow(deps, id);
    deps.mailer.answer({ ok: false, kind: 'temporary', code: 451, detail: 'try later' });
    expect(await sendJob(deps, id)).toBe('rescheduled');
    expect(await getJob(deps, id)).toMatchObject({ state: 'SCHEDULED', dueAt: Date.UTC(2026, 2, 3, 8) });

    // Sent on Tuesday; an out-of-office answer says back on Friday the 6th: the step is held to Saturday, so Monday 09:00.
    deps.clock.set(Date.UTC(2026, 2, 3, 8, 5));
    await queueNow(deps, id);
    expect(await sendJob(deps, id)).toBe('sent');
    const messageId = deps.mailer.sent.at(-1)!.email.messageId;
    const [mailbox] = await mailboxes.list(deps);
    const ooo: InboundMessage = {
      uid: 1,
      receivedAt: deps.clock.now(),
      messageId: 'ooo@client.com',
      inReplyTo: [messageId],
      references: [],
      to: ['rep@sender.com'],
      from: 'ber@client.com',
      subject: 'Out of office',
      headers: { 'auto-submitted': 'auto-replied' },
      text: 'Out of the office, back on 6 March.',
    };
    expect(await applyMessages(deps, await mailboxes.get(deps, String(mailbox!.id)), [ooo])).toEqual(['AUTO_REPLY']);
    expect((await getJob(deps, jobId(ids['ber@client.com']!, 1)))!.dueAt).toBe(Date.UTC(2026, 2, 9, 8));
  });

  it('a scheduled send still costs 4 store requests: the window is read from the campaign and lead rows the send reads anyway', async () => {
    const deps = unitDeps();
    const { ids } = await launched(deps, { 'a@client.com': { timezone: 'Asia/Kolkata' }, 'b@client.com': { country: 'IN' } }, [
      { waitDays: 2, body: 'Again.' },
    ]);
    const [a, b] = Object.values(ids).map((l) => jobId(l, 0));
    await queueNow(deps, a!);
    expect(await sendJob(deps, a!)).toBe('sent');
    deps.clock.advance(11 * 60_000);
    await queueNow(deps, b!);
    const ref = refOf((await getJob(deps, b!))!);
    deps.store.reset();
    expect(await sendJob(deps, b!, { ref })).toBe('sent');
    expect(Object.values(deps.store.requests).reduce((x, y) => x + y, 0)).toBe(4);
    expect(isOpen(WINDOW, 'Asia/Kolkata', deps.mailer.sent[1]!.email.date!)).toBe(true);
  });

  it('a schedule removed after planning lets a waiting job go at any hour', async () => {
    const deps = unitDeps();
    const { campaignId, ids } = await launched(deps, { 'ny@client.com': { timezone: 'America/New_York' } });
    await campaigns.update(deps, campaignId, { schedule: null });
    const ny = jobId(ids['ny@client.com']!, 0);
    await queueNow(deps, ny);
    expect(await sendJob(deps, ny)).toBe('sent');
  });
});
