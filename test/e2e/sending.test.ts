import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobId } from '@outbound/core/sending/keys';
import { sendJob } from '@outbound/core/sending/sender';
import { getJob } from '@outbound/core/sending/jobs';
import { AI_DISCLOSURE } from '@outbound/core/guardrails/disclosure';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { eventually, mailbox, smtpMailbox } from '../helpers/fixtures.ts';
import * as suppression from '@outbound/core/suppression/index';
import { campaignKey } from '@outbound/core/campaign/keys';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../helpers/smtp.ts';
import { startAiStub, type AiStub } from '../helpers/ai-stub.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

// A day of engine time is under two seconds: a whole three-email sequence is watched in a few.
const SCALE = 50_000;
const ADDRESS = '1 Main St\nSpringfield, IL 62701\nUSA';

let smtp: TestSmtpServer;
let ai: AiStub;
let engine: TestEngine;

beforeAll(async () => {
  smtp = await startSmtpServer({
    users: {
      'sales@flow.com': 'sales-password',
      'ai@ai.flow.com': 'ai-password',
      'guard@guard.flow.com': 'guard-password',
      'race@race.flow.com': 'race-password',
      'stop@stop.flow.com': 'stop-password',
      'dlq@dlq.flow.com': 'dlq-password',
    },
  });
  ai = await startAiStub();
  engine = await startTestEngine({
    realTime: true,
    timeScale: SCALE,
    openaiBaseUrl: ai.openaiBaseUrl,
    anthropicBaseUrl: ai.anthropicBaseUrl,
  });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
  await ai?.stop();
});

const to = (m: ReceivedMessage) => m.envelope.to[0]!;

/** The messages to these addresses, once `count` of them have arrived (other tests' mail is ignored). */
async function mailTo(addresses: string[], count: number): Promise<ReceivedMessage[]> {
  return eventually(
    async () => {
      const mine = smtp.messages.filter((m) => addresses.includes(to(m)));
      return mine.length >= count ? mine : undefined;
    },
    60_000,
    `${count} emails to ${addresses.join(', ')}`,
  );
}
const header = (m: ReceivedMessage, name: string) => {
  const line = m.raw.split(/\r?\n(?=\S)/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line
    ?.slice(name.length + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
};

async function addLeads(campaignId: string, leads: Record<string, unknown>[]) {
  const ids: string[] = [];
  for (const lead of leads) {
    const res = await engine.api.request('POST', '/v1/leads', { campaignId, ...lead });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

describe('a launched campaign', { timeout: 90_000 }, () => {
  it('sends each lead its first email and both follow-ups, threaded, with the footer and RFC 8058 headers, exactly once', async () => {
    const api = engine.api;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'flow.com', mailingAddress: ADDRESS })).body;
    const box = await smtpMailbox(api, domain, 'sales', smtp);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Flow',
        aiPromptTemplate: 'unused',
        subject: 'A question for {{company}}',
        template: 'Hi {{firstName}},\n\nDoes {{company}} send cold email by hand?\n\n{{senderName}}',
        mailboxIds: [box.id],
        steps: [
          { waitDays: 1, body: 'Hi {{firstName}}, just bumping this.' },
          { waitDays: 2, body: 'Last note from me, {{firstName}}.' },
        ],
      })
    ).body;
    const leadIds = await addLeads(campaign.id, [
      { email: 'ada@acme.test', firstName: 'Ada', company: 'Acme' },
      { email: 'bo@globex.test', firstName: 'Bo', company: 'Globex' },
      { email: 'cy@initech.test', company: 'Initech' },
    ]);
    const launched = await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
    expect(launched.status).toBe(200);

    const recipients = ['ada@acme.test', 'bo@globex.test', 'cy@initech.test'];
    const all = await mailTo(recipients, 9);
    expect(all).toHaveLength(9);
    const byLead = new Map<string, ReceivedMessage[]>();
    for (const m of all) byLead.set(to(m), [...(byLead.get(to(m)) ?? []), m]);
    expect([...byLead.keys()].sort()).toEqual(['ada@acme.test', 'bo@globex.test', 'cy@initech.test']);

    for (const [address, mails] of byLead) {
      expect(mails).toHaveLength(3);
      const [first, second, third] = mails as [ReceivedMessage, ReceivedMessage, ReceivedMessage];
      for (const m of mails) {
        expect(m.envelope.from).toBe('sales@flow.com');
        expect(header(m, 'From')).toBe('Sam Sender <sales@flow.com>');
        expect(header(m, 'List-Unsubscribe')).toMatch(
          new RegExp(`^<${engine.deps.config.publicBaseUrl}/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+>$`),
        );
        expect(header(m, 'List-Unsubscribe')).not.toContain(encodeURIComponent(address));
        expect(header(m, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
        expect(m.messageId).toMatch(/@flow\.com>$/);
        // Footer: after the body, the address lines, then the unsubscribe link; no AI marker without AI.
        const text = m.text!.replace(/\r\n/g, '\n');
        expect(text).toMatch(/\n--\n1 Main St\nSpringfield, IL 62701\nUSA\nUnsubscribe: http:\/\/\S+\/unsubscribe\/\S+\n?$/);
        expect(text).not.toContain(AI_DISCLOSURE);
      }
      const company = { 'ada@acme.test': 'Acme', 'bo@globex.test': 'Globex', 'cy@initech.test': 'Initech' }[address]!;
      expect(first.subject).toBe(`A question for ${company}`);
      expect(first.inReplyTo).toBeUndefined();
      expect(second.subject).toBe(`Re: A question for ${company}`);
      expect(third.subject).toBe(`Re: A question for ${company}`);
      expect(second.inReplyTo).toBe(first.messageId);
      expect(second.references).toEqual([first.messageId]);
      expect(third.inReplyTo).toBe(second.messageId);
      expect(third.references).toEqual([first.messageId, second.messageId]);
      expect(first.text).toContain('Sam Sender');
    }
    // A blank first name reads "there", the documented fallback.
    expect(byLead.get('cy@initech.test')![0]!.text).toMatch(/^Hi there,/);
    expect(byLead.get('ada@acme.test')![1]!.text).toMatch(/^Hi Ada, just bumping this\./);

    // Follow-ups wait waitDays of engine time after the previous email.
    const ada = byLead.get('ada@acme.test')!;
    expect((ada[1]!.receivedAt - ada[0]!.receivedAt) * SCALE).toBeGreaterThanOrEqual(86_400_000);
    expect((ada[2]!.receivedAt - ada[1]!.receivedAt) * SCALE).toBeGreaterThanOrEqual(2 * 86_400_000);

    // The status move follows the record of the last send; give it a moment.
    await eventually(
      async () => {
        const leads = (await api.request('GET', `/v1/leads?campaignId=${campaign.id}`)).body.leads;
        return leads.every((l: { status: string }) => l.status === 'COMPLETED');
      },
      10_000,
      'every lead COMPLETED',
    );
    const row = (await api.request('GET', '/v1/campaigns')).body.find((c: { id: string }) => c.id === campaign.id);
    expect(row).toMatchObject({ sentCount: 9, progress: { completed: 3, percentDone: 100 } });
    expect(row.lastActivityAt).not.toBeNull();
    const status = (await api.request('GET', '/v1/queue/status')).body;
    expect(status.counts.completed).toBeGreaterThanOrEqual(9);
    expect(status.throttling).toEqual({ cadenceFloorSeconds: 480, jitterSeconds: 120 });

    // Forced redelivery: every job's message arrives again, and nothing is sent twice.
    await engine.deps.queue.enqueue(leadIds.flatMap((id) => [0, 1, 2].map((step) => ({ jobId: jobId(id, step), delayMs: 0 }))));
    await eventually(
      async () => (await api.request('GET', '/v1/queue/status')).body.counts.waiting === 0,
      10_000,
      'redelivered messages to drain',
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(smtp.messages.filter((m) => recipients.includes(to(m)))).toHaveLength(9);
  });

  it('claims a job once when two senders get the same message at the same moment', async () => {
    // An engine without its own sender and dispatcher, so only this test's three senders touch the job.
    const quiet = await startTestEngine({ realTime: true, timeScale: SCALE, sending: false });
    try {
      const api = quiet.api;
      await api.login();
      const domain = (await api.request('POST', '/v1/domains', { domainName: 'race.flow.com', mailingAddress: ADDRESS })).body;
      const box = await smtpMailbox(api, domain, 'race', smtp);
      const campaign = (
        await api.request('POST', '/v1/campaigns', {
          name: 'Race',
          aiPromptTemplate: 'x',
          subject: 'Hi',
          template: 'Hello {{firstName}}, a short note.',
          mailboxIds: [box.id],
        })
      ).body;
      const lead = (await api.request('POST', '/v1/leads', { campaignId: campaign.id, email: 'race@acme.test', firstName: 'Rae' })).body;
      await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
      const id = jobId(lead.id, 0);
      // Queued as the dispatcher would, then three deliveries of its message at once.
      const job = (await getJob(quiet.deps, id))!;
      expect(job.state).toBe('SCHEDULED');
      await quiet.deps.store.update({ pk: job.pk, sk: job.sk }, { set: { state: 'QUEUED' } });
      const outcomes = await Promise.all([sendJob(quiet.deps, id), sendJob(quiet.deps, id), sendJob(quiet.deps, id)]);
      expect(
        outcomes.filter((o) => o === 'sent'),
        JSON.stringify({ outcomes, job: await getJob(quiet.deps, id), logs: quiet.logs.filter((l) => l.level !== 'info') }),
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'sent').every((o) => o === 'ignored' || o === 'rescheduled')).toBe(true);
      await mailTo(['race@acme.test'], 1);
      await new Promise((r) => setTimeout(r, 500));
      expect(smtp.messages.filter((m) => to(m) === 'race@acme.test')).toHaveLength(1);
      expect((await getJob(quiet.deps, id))!.state).toBe('SENT');
    } finally {
      await quiet.stop();
    }
  });
});

describe('recovery of a lost message', () => {
  it('queues again a job whose message was lost (dead-letter queue) once, and it goes out once', async () => {
    const quiet = await startTestEngine({ realTime: true, timeScale: SCALE, sending: false });
    try {
      const api = quiet.api;
      await api.login();
      const domain = (await api.request('POST', '/v1/domains', { domainName: 'dlq.flow.com', mailingAddress: ADDRESS })).body;
      const box = await smtpMailbox(api, domain, 'dlq', smtp);
      const campaign = (
        await api.request('POST', '/v1/campaigns', {
          name: 'DLQ',
          aiPromptTemplate: 'x',
          subject: 'Hi',
          template: 'Hello {{firstName}}, a short note.',
          mailboxIds: [box.id],
        })
      ).body;
      const lead = (await api.request('POST', '/v1/leads', { campaignId: campaign.id, email: 'dlq@acme.test', firstName: 'D' })).body;
      await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
      const id = jobId(lead.id, 0);
      // The dispatcher queued it; its message then went to the dead-letter queue: the job is QUEUED with nothing in flight.
      const { dispatch, QUEUED_STALE_MS } = await import('@outbound/core/sending/dispatcher');
      expect((await dispatch(quiet.deps)).queued).toBe(1);
      expect((await getJob(quiet.deps, id))!.state).toBe('QUEUED');
      expect((await dispatch(quiet.deps)).recovered).toBe(0);
      const later = { ...quiet.deps, wallClock: { now: () => Date.now() + QUEUED_STALE_MS + 60_000 } };
      expect((await dispatch(later)).recovered).toBe(1);
      // Once: the re-queue moved queuedAt, so the next tick leaves it alone.
      expect((await dispatch(later)).recovered).toBe(0);
      expect(await sendJob(quiet.deps, id)).toBe('sent');
      expect(await sendJob(quiet.deps, id)).toBe('ignored');
      await mailTo(['dlq@acme.test'], 1);
      await new Promise((r) => setTimeout(r, 300));
      expect(smtp.messages.filter((m) => to(m) === 'dlq@acme.test')).toHaveLength(1);
    } finally {
      await quiet.stop();
    }
  });
});

describe('sequence stops', () => {
  it('a reply, an unsubscribe from the email’s own link, or an erase ends the lead’s follow-ups', async () => {
    const api = engine.api;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'stop.flow.com', mailingAddress: ADDRESS })).body;
    const box = await smtpMailbox(api, domain, 'stop', smtp);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Stops',
        aiPromptTemplate: 'x',
        subject: 'Hi {{firstName}}',
        template: 'Hello {{firstName}}, a short note.',
        mailboxIds: [box.id],
        // Four engine days: about seven seconds here, time to act between the emails.
        steps: [{ waitDays: 4, body: 'Following up, {{firstName}}.' }],
      })
    ).body;
    const [replied, unsubscribed, erased, control] = await addLeads(campaign.id, [
      { email: 'replies@acme.test', firstName: 'R' },
      { email: 'unsub@acme.test', firstName: 'U' },
      { email: 'erase@acme.test', firstName: 'E' },
      { email: 'control@acme.test', firstName: 'C' },
    ]);
    await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
    const all = ['replies@acme.test', 'unsub@acme.test', 'erase@acme.test', 'control@acme.test'];
    const firsts = await mailTo(all, 4);

    // The whole queue held while the three stops land, so each surely lands before its follow-up is due: the
    // follow-ups are seven seconds after the first emails, which a loaded machine can spend before the last stop.
    expect((await api.request('POST', '/v1/queue/pause', { paused: true })).status).toBe(200);
    try {
      // A reply (as the inbound reader records it): the lead moves to REPLIED.
      const { transition } = await import('@outbound/core/lead/sequence');
      const { fromItem: leadFromItem } = await import('@outbound/core/lead/entity');
      const lead = await engine.deps.store.get({ pk: `LEAD#${replied}`, sk: 'LEAD' });
      expect(await transition(engine.deps, leadFromItem(lead!), 'REPLIED')).toBe(true);
      // The recipient presses one-click unsubscribe in their mail client (RFC 8058), from the email's own header.
      const unsubMail = firsts.find((m) => to(m) === 'unsub@acme.test')!;
      const link = /<([^>]+)>/.exec(header(unsubMail, 'List-Unsubscribe')!)![1]!;
      const click = await checkedFetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(click.status).toBe(200);
      // Erasure of the third.
      expect((await api.request('DELETE', '/v1/leads/erase', { email: 'erase@acme.test' })).body).toEqual({ erased: 1 });
    } finally {
      await api.request('POST', '/v1/queue/pause', { paused: false });
    }

    await mailTo(['control@acme.test'], 2);
    for (const id of [replied, unsubscribed, erased]) {
      await eventually(
        async () => (await getJob(engine.deps, jobId(id!, 1)))?.state === 'CANCELLED',
        20_000,
        'the follow-up to be cancelled',
      );
    }
    expect(smtp.messages.filter((m) => ['replies@acme.test', 'unsub@acme.test', 'erase@acme.test'].includes(to(m)))).toHaveLength(3);
    void control;
  });
});

describe('AI copy', () => {
  it('writes the body with the customer key, marks it only for EU recipients, and falls back to the plain template (no marker) when AI fails', async () => {
    const api = engine.api;
    expect((await api.request('PUT', '/v1/ai-keys/openai', { apiKey: 'sk-test-customer-key-123' })).status).toBe(204);
    ai.setMode('ok');
    ai.setReply((prompt) => `Dear reader, this was written for: ${prompt.slice(0, 40)}`);
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'ai.flow.com', mailingAddress: ADDRESS })).body;
    const box = await smtpMailbox(api, domain, 'ai', smtp);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'AI',
        aiProvider: 'OPENAI',
        aiPromptTemplate: 'Write to {{firstName}} at {{company}}',
        subject: 'Hello {{firstName}}',
        template: 'Plain hello, {{firstName}}.',
        mailboxIds: [box.id],
      })
    ).body;
    await addLeads(campaign.id, [
      { email: 'hans@firma.de', firstName: 'Hans', company: 'Firma' },
      { email: 'joe@corp.test', firstName: 'Joe', company: 'Corp', customFields: { country: 'Germany' } },
      { email: 'amy@corp.test', firstName: 'Amy', company: 'Corp', customFields: { country: 'US' } },
    ]);
    await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);
    const sent = await mailTo(['hans@firma.de', 'joe@corp.test', 'amy@corp.test'], 3);
    const body = (address: string) => sent.find((m) => to(m) === address)!.text!.replace(/\r\n/g, '\n');
    expect(body('hans@firma.de')).toMatch(/^Dear reader, this was written for: Write to Hans at Firma/);
    expect(body('hans@firma.de').trimEnd().endsWith(AI_DISCLOSURE)).toBe(true);
    expect(body('joe@corp.test').trimEnd().endsWith(AI_DISCLOSURE)).toBe(true);
    expect(body('amy@corp.test')).toMatch(/^Dear reader/);
    expect(body('amy@corp.test')).not.toContain(AI_DISCLOSURE);
    const call = ai.requests.find((r) => JSON.stringify(r.body).includes('Hans'))!;
    expect(call.headers.authorization).toBe('Bearer sk-test-customer-key-123');

    // The provider fails: the plain template goes, and an EU recipient gets no marker on it.
    ai.setMode('error500');
    await addLeads(campaign.id, [{ email: 'eva@firma.de', firstName: 'Eva', company: 'Firma' }]);
    const [fallback] = await mailTo(['eva@firma.de'], 1);
    expect(fallback!.text).toMatch(/^Plain hello, Eva\./);
    expect(fallback!.text).not.toContain(AI_DISCLOSURE);
    expect(JSON.stringify(engine.logs)).not.toContain('sk-test-customer-key-123');
    ai.setMode('ok');
  });
});

describe('guardrails on the send path', () => {
  it('refuses to send from a domain whose address was cleared after launch, and sends once it is back', async () => {
    const api = engine.api;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'guard.flow.com', mailingAddress: ADDRESS })).body;
    const box = await smtpMailbox(api, domain, 'guard', smtp);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Guard',
        aiPromptTemplate: 'x',
        subject: 'Hi',
        template: 'Hello {{firstName}}, a short note.',
        mailboxIds: [box.id],
      })
    ).body;
    expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);
    // Cleared with confirm while the campaign runs: the footer has no address, so nothing may go.
    expect((await api.request('PATCH', `/v1/domains/${domain.id}`, { mailingAddress: null, confirm: true })).status).toBe(200);
    const [leadId] = await addLeads(campaign.id, [{ email: 'nofooter@acme.test', firstName: 'No' }]);
    const refused = await eventually(
      async () => {
        const job = await getJob(engine.deps, jobId(leadId!, 0));
        return typeof job?.lastError === 'string' && job.lastError.includes('mailing address') ? job : undefined;
      },
      20_000,
      'the send to be refused',
    );
    // Refused, the send waits for the address and is tried again (at this TIME_SCALE the retry may already be queued): it never ends.
    expect(['SCHEDULED', 'QUEUED', 'CLAIMED']).toContain(refused.state);
    expect(smtp.messages.map(to)).not.toContain('nofooter@acme.test');

    await api.request('PATCH', `/v1/domains/${domain.id}`, { mailingAddress: '9 Side St\nDover' });
    const [mail] = await mailTo(['nofooter@acme.test'], 1);
    expect(mail!.text).toContain('9 Side St\nDover\nUnsubscribe:');
  });

  it('stops a suppressed address before anything else can hold or end its sequence', async () => {
    // Without its own sender, so the job waits for this test.
    const quiet = await startTestEngine({ realTime: true, timeScale: SCALE, sending: false });
    try {
      const api = quiet.api;
      await api.login();
      const domain = (await api.request('POST', '/v1/domains', { domainName: 'sup.flow.com', mailingAddress: ADDRESS })).body;
      const box = await mailbox(api, domain, 'sup');
      const campaign = (
        await api.request('POST', '/v1/campaigns', {
          name: 'Sup',
          aiPromptTemplate: 'x',
          subject: 'Hi',
          template: 'Hello {{firstName}}.',
          mailboxIds: [box.id],
        })
      ).body;
      const lead = (await api.request('POST', '/v1/leads', { campaignId: campaign.id, email: 'late-unsub@acme.test', firstName: 'L' }))
        .body;
      expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);
      // The address lands on the list from elsewhere before this lead's row catches up, and the campaign
      // has lost its mailbox: the suppression must win over "wait for a mailbox".
      await suppression.suppress(quiet.deps, 'late-unsub@acme.test', 'unsubscribe');
      await quiet.deps.store.update(campaignKey(campaign.id), { set: { mailboxIds: [] } });
      const id = jobId(lead.id, 0);
      const job = (await getJob(quiet.deps, id))!;
      await quiet.deps.store.update({ pk: job.pk, sk: job.sk }, { set: { state: 'QUEUED' } });
      expect(await sendJob(quiet.deps, id)).toBe('cancelled');
      expect(await getJob(quiet.deps, id)).toMatchObject({ state: 'CANCELLED', reason: 'address suppressed' });
      const leads = (await api.request('GET', `/v1/leads?campaignId=${campaign.id}`)).body.leads;
      expect(leads[0]).toMatchObject({ email: 'late-unsub@acme.test', status: 'SUPPRESSED' });
    } finally {
      await quiet.stop();
    }
  });
});
