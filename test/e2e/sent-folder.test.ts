import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '@outbound/core/sending/dispatcher';
import { getJob } from '@outbound/core/sending/jobs';
import { jobId } from '@outbound/core/sending/keys';
import { mailboxKey } from '@outbound/core/mailbox/keys';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { eventually } from '../helpers/fixtures.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startFaultySmtpServer, type FaultySmtpServer } from '../helpers/smtp-faults.ts';

const USER = 'g@gsend.com';
const PASS = 'google-app-password';

let dovecot: TestDovecot;
let dropping: FaultySmtpServer;
let good: TestSmtpServer;
let engine: TestEngine;

beforeAll(async () => {
  dovecot = await startDovecot({ [USER]: PASS });
  dropping = await startFaultySmtpServer({ users: { [USER]: PASS }, dropAfterData: true });
  good = await startSmtpServer({ users: { [USER]: PASS } });
  engine = await startTestEngine({ realTime: true, timeScale: 50_000 });
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
  await good?.stop();
  await dropping?.stop();
  await dovecot?.stop();
});

describe('an unknown outcome on a mailbox whose provider files sent mail (GOOGLE, MICROSOFT)', { timeout: 90_000 }, () => {
  it('is settled by the Sent folder: found means sent, absent means sent again, and nobody gets two', async () => {
    const api = engine.api;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'gsend.com', mailingAddress: '1 Main St' })).body;
    const box = await api.request('POST', '/v1/mailboxes', {
      email: USER, domainId: domain.id, provider: 'GOOGLE', authPassword: PASS, dailyCap: 1000,
      smtpHost: '127.0.0.1', smtpPort: dropping.port, imapHost: '127.0.0.1', imapPort: dovecot.imapPort,
    });
    expect(box.status).toBe(201);
    const campaign = (await api.request('POST', '/v1/campaigns', { name: 'G', aiPromptTemplate: 'x', subject: 'Hi', template: 'Hello {{firstName}}, a short note.', mailboxIds: [box.body.id] })).body;
    const ids: Record<string, string> = {};
    for (const email of ['filed@x.test', 'lost@x.test']) ids[email] = (await api.request('POST', '/v1/leads', { campaignId: campaign.id, email, firstName: 'F' })).body.id;
    await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);

    // The server drops the connection after taking each message: both outcomes are unknown, and both stay claimed.
    for (const email of Object.keys(ids)) {
      await eventually(async () => String((await getJob(engine.deps, jobId(ids[email]!, 0)))?.lastError ?? '').includes('Sent folder'), 30_000, `${email} in doubt`);
      expect((await getJob(engine.deps, jobId(ids[email]!, 0)))!.state).toBe('CLAIMED');
    }
    // The provider filed one of them; the other never left.
    const filed = dropping.messages.find((raw) => /^To: filed@x\.test/m.test(raw))!;
    await dovecot.deliver(USER, filed, 'Sent');
    // The provider recovers; the claims are now old enough to settle (ten minutes on, by the wall clock).
    await engine.deps.store.update(mailboxKey(box.body.id), { set: { smtpPort: good.port } });
    const later = { ...engine.deps, wallClock: { now: () => Date.now() + 11 * 60_000 } };
    expect((await dispatch(later)).settled).toBe(2);

    expect((await getJob(engine.deps, jobId(ids['filed@x.test']!, 0)))!.state).toBe('SENT');
    await eventually(async () => (await getJob(engine.deps, jobId(ids['lost@x.test']!, 0)))?.state === 'SENT', 30_000, 'the lost one to be sent again');
    await new Promise((r) => setTimeout(r, 1000));
    expect(good.messages.map((m) => m.envelope.to[0])).toEqual(['lost@x.test']);
    const row = (await api.request('GET', '/v1/campaigns')).body.find((c: { id: string }) => c.id === campaign.id);
    expect(row.sentCount).toBe(2);
  });
});
