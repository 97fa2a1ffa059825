/**
 * Sending windows end to end: a campaign with a schedule, leads in four
 * zones (one by its own timezone field, two more by name, one by country and
 * state), a follow-up each; every email that arrives is dated by the engine
 * clock inside its lead's local window on an allowed day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOpen } from '@outbound/core/schedule/window';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { eventually, smtpMailbox } from '../helpers/fixtures.ts';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';

// A day of engine time is under two seconds: waiting for windows in four zones, and a follow-up each, takes a few.
const SCALE = 50_000;
const DAY = 86_400_000;
const WINDOW = { days: ['mon', 'tue', 'wed', 'thu', 'fri'] as ('mon' | 'tue' | 'wed' | 'thu' | 'fri')[], start: '09:00', end: '17:00' };

let smtp: TestSmtpServer;
let engine: TestEngine;

beforeAll(async () => {
  smtp = await startSmtpServer({ users: { 'hours@hours.com': 'hours-password' } });
  engine = await startTestEngine({ realTime: true, timeScale: SCALE });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
});

const header = (m: ReceivedMessage, name: string) => {
  const line = m.raw.split(/\r?\n(?=\S)/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line
    ?.slice(name.length + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
};

describe('a campaign with a schedule', { timeout: 90_000 }, () => {
  it("sends every email, first and follow-up, inside its lead's local window on a weekday, dated by the engine clock, exactly once", async () => {
    const api = engine.api;
    const domain = (
      await api.request('POST', '/v1/domains', { domainName: 'hours.com', mailingAddress: '1 Main St\nSpringfield, IL 62701\nUSA' })
    ).body;
    const box = await smtpMailbox(api, domain, 'hours', smtp);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Office hours',
        aiPromptTemplate: 'unused',
        subject: 'A question for {{company}}',
        template: 'Hi {{firstName}},\n\nA short question.\n\n{{senderName}}',
        mailboxIds: [box.id],
        steps: [{ waitDays: 1, body: 'Hi {{firstName}}, just bumping this.' }],
        schedule: { timezone: 'America/Chicago', ...WINDOW },
      })
    ).body;
    expect(campaign.schedule).toMatchObject({ timezone: 'America/Chicago', start: '09:00' });
    const leads: [string, Record<string, string>, string][] = [
      ['ny1@zones.test', { timezone: 'America/New_York' }, 'America/New_York'],
      ['ny2@zones.test', { timezone: 'America/New_York' }, 'America/New_York'],
      ['ber1@zones.test', { timezone: 'Europe/Berlin' }, 'Europe/Berlin'],
      ['ber2@zones.test', { country: 'Germany' }, 'Europe/Berlin'],
      ['ktm1@zones.test', { timezone: 'Asia/Kathmandu' }, 'Asia/Kathmandu'],
      ['ktm2@zones.test', { country: 'NP' }, 'Asia/Kathmandu'],
      ['syd1@zones.test', { country: 'AU', region: 'NSW' }, 'Australia/Sydney'],
      ['syd2@zones.test', { country: 'Australia', state: 'New South Wales' }, 'Australia/Sydney'],
    ];
    for (const [email, customFields] of leads) {
      const res = await api.request('POST', '/v1/leads', {
        campaignId: campaign.id,
        email,
        firstName: 'Pat',
        company: 'Acme',
        customFields,
      });
      expect(res.status).toBe(201);
    }
    const rows = (await api.request('GET', `/v1/leads?campaignId=${campaign.id}`)).body.leads as { email: string; timezone: string }[];
    const zoneOf = new Map(leads.map(([email, , zone]) => [email, zone]));
    for (const row of rows) expect(row.timezone).toBe(zoneOf.get(row.email));

    const launchedAt = engine.deps.clock.now();
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);

    const mine = () => smtp.messages.filter((m) => zoneOf.has(m.envelope.to[0]!));
    const all = await eventually(
      async () => (mine().length >= leads.length * 2 ? mine() : undefined),
      60_000,
      'two emails to each of the eight leads',
    );
    // Nothing more comes: the sequence has ended for each.
    await new Promise((r) => setTimeout(r, 500));
    expect(mine()).toHaveLength(leads.length * 2);

    const byLead = new Map<string, number[]>();
    for (const m of all) {
      const to = m.envelope.to[0]!;
      const date = Date.parse(header(m, 'Date')!);
      expect(Number.isNaN(date)).toBe(false);
      // Inside the lead's own window, on a weekday there, by the engine clock (far ahead of the wall clock at this scale).
      expect({ to, zone: zoneOf.get(to), date: new Date(date).toISOString(), open: isOpen(WINDOW, zoneOf.get(to)!, date) }).toMatchObject({
        open: true,
      });
      expect(date).toBeGreaterThanOrEqual(Math.floor(launchedAt / 1000) * 1000);
      byLead.set(to, [...(byLead.get(to) ?? []), date]);
    }
    for (const [to, dates] of byLead) {
      expect(dates, to).toHaveLength(2);
      // The follow-up waited its day after the first email (a Date has whole seconds), then for the window.
      expect(dates[1]! - dates[0]!, to).toBeGreaterThanOrEqual(DAY - 1000);
    }
  });
});
