/** "Why isn't this lead sending?": each rule the send path holds a lead by, as next-send reports it. */
import { describe, expect, it } from 'vitest';
import * as campaigns from '../campaign/index.ts';
import * as domains from '../domain/index.ts';
import * as leads from '../lead/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { NotFoundError } from '../errors.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { nextOpen } from '../schedule/window.ts';
import { delayOpenJobs, getJob } from './jobs.ts';
import { jobId, jobKey } from './keys.ts';
import { sendJob } from './sender.ts';
import { nextSend } from './next-send.ts';

const DAY = 86_400_000;
const WINDOW = { days: ['mon', 'tue', 'wed', 'thu', 'fri'] as ('mon' | 'tue' | 'wed' | 'thu' | 'fri')[], start: '09:00', end: '17:00' };

async function sentOnce(deps: UnitDeps, dailyCap = 25) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St\nSpringfield' });
  const box = await created(mailboxes.create, deps, {
    email: 'rep@sender.com',
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    authPassword: 'pw',
    dailyCap,
  });
  const c = await created(campaigns.create, deps, {
    name: 'C',
    aiPromptTemplate: 'x',
    subject: 'Hello',
    template: 'Hi, a note.',
    mailboxIds: [String(box.id)],
    steps: [{ waitDays: 2, body: 'Again.' }],
    schedule: { timezone: 'Europe/Berlin', ...WINDOW },
  });
  const lead = await created(leads.create, deps, {
    campaignId: c.id,
    email: 'ana@client.com',
    customFields: { timezone: 'America/New_York' },
  });
  await campaigns.launch(deps, String(c.id));
  const first = jobId(String(lead.id), 0);
  // Monday 09:00 UTC is 04:00 in New York: the first email goes at its opening, 14:00 UTC.
  deps.clock.set((await getJob(deps, first))!.dueAt);
  await deps.store.update(jobKey(first), { set: { state: 'QUEUED' } });
  expect(await sendJob(deps, first)).toBe('sent');
  return { leadId: String(lead.id), campaignId: String(c.id), boxId: String(box.id), sentAt: deps.clock.now() };
}

const rules = (answer: { blockedBy: { rule: string }[] }) => answer.blockedBy.map((b) => b.rule).sort();

describe('next-send', () => {
  it("a follow-up: its waitDays, its mailbox's cadence slot, then its window; the same answer on every read", async () => {
    const deps = unitDeps();
    const { leadId, sentAt } = await sentOnce(deps);
    const answer = await nextSend(deps, leadId);
    expect(answer).toMatchObject({ step: 1, timezone: 'America/New_York', timezoneSource: 'lead' });
    expect(rules(answer)).toEqual(['cadence', 'waitDays']);
    expect(answer.blockedBy.find((b) => b.rule === 'waitDays')!.until).toBe(new Date(sentAt + 2 * DAY).toISOString());
    expect(answer.earliestAt).toBe(new Date(nextOpen(WINDOW, 'America/New_York', sentAt + 2 * DAY)).toISOString());
    expect((await getJob(deps, jobId(leadId, 1)))!.dueAt).toBe(Date.parse(answer.earliestAt!));
    expect(await nextSend(deps, leadId)).toEqual(answer);

    // Two days on, at night in New York: only the window holds it.
    deps.clock.set(sentAt + 2 * DAY + 10 * 3_600_000);
    const night = await nextSend(deps, leadId);
    expect(rules(night)).toEqual(['window']);
    expect(night.earliestAt).toBe(night.blockedBy[0]!.until);
  });

  it('a daily cap reached, an out-of-office hold, and a mailbox paused (never, until it is resumed)', async () => {
    const deps = unitDeps();
    const { leadId, boxId, sentAt } = await sentOnce(deps, 1);
    expect(rules(await nextSend(deps, leadId))).toContain('dailyCap');
    const back = sentAt + 5 * DAY;
    await delayOpenJobs(deps, leadId, back, undefined);
    const away = await nextSend(deps, leadId);
    expect(away.blockedBy.find((b) => b.rule === 'outOfOffice')!.until).toBe(new Date(back).toISOString());
    expect(Date.parse(away.earliestAt!)).toBeGreaterThanOrEqual(back);
    await mailboxes.update(deps, { id: boxId, status: 'PAUSED' });
    const paused = await nextSend(deps, leadId);
    expect(rules(paused)).toContain('mailbox');
    expect(paused.earliestAt).toBeNull();
  });

  it('answers NotFound for an unknown lead', async () => {
    await expect(nextSend(unitDeps(), 'nobody')).rejects.toThrow(NotFoundError);
  });
});
