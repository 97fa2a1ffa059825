import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollDue } from '@outbound/core/inbound/index';
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
// Two mailboxes on an IMAP server the engine knows nothing about: one whose server files sent mail, one whose does not.
const FILER = 'f@filer.com';
const PLAIN = 'p@plain.com';
const OTHER_PASS = 'imap-password-1';

let dovecot: TestDovecot;
let dropping: FaultySmtpServer;
let good: TestSmtpServer;
let engine: TestEngine;

beforeAll(async () => {
  const users = { [USER]: PASS, [FILER]: OTHER_PASS, [PLAIN]: OTHER_PASS };
  dovecot = await startDovecot(users);
  dropping = await startFaultySmtpServer({ users, dropAfterData: true });
  good = await startSmtpServer({ users });
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
  it('is settled by the Sent folder: found means sent, absent at two lookups means sent again, and nobody gets two', async () => {
    const api = engine.api;
    const domain = (await api.request('POST', '/v1/domains', { domainName: 'gsend.com', mailingAddress: '1 Main St' })).body;
    const box = await api.request('POST', '/v1/mailboxes', {
      email: USER,
      domainId: domain.id,
      provider: 'GOOGLE',
      authPassword: PASS,
      dailyCap: 1000,
      smtpHost: '127.0.0.1',
      smtpPort: dropping.port,
      imapHost: '127.0.0.1',
      imapPort: dovecot.imapPort,
    });
    expect(box.status).toBe(201);
    const campaign = (
      await api.request('POST', '/v1/campaigns', {
        name: 'G',
        aiPromptTemplate: 'x',
        subject: 'Hi',
        template: 'Hello {{firstName}}, a short note.',
        mailboxIds: [box.body.id],
      })
    ).body;
    const ids: Record<string, string> = {};
    for (const email of ['filed@x.test', 'lost@x.test'])
      ids[email] = (await api.request('POST', '/v1/leads', { campaignId: campaign.id, email, firstName: 'F' })).body.id;
    await api.request('POST', `/v1/campaigns/${campaign.id}/launch`);

    // The server drops the connection after taking each message: both outcomes are unknown, and both stay claimed.
    for (const email of Object.keys(ids)) {
      await eventually(
        async () => String((await getJob(engine.deps, jobId(ids[email]!, 0)))?.lastError ?? '').includes('Sent folder'),
        30_000,
        `${email} in doubt`,
      );
      expect((await getJob(engine.deps, jobId(ids[email]!, 0)))!.state).toBe('CLAIMED');
    }
    // The provider filed one of them; the other never left.
    const filed = dropping.messages.find((raw) => /^To: filed@x\.test/m.test(raw))!;
    await dovecot.deliver(USER, filed, 'Sent');
    // The provider recovers; the claims are now old enough to settle (ten minutes on, by the wall clock).
    await engine.deps.store.update(mailboxKey(box.body.id), { set: { smtpPort: good.port } });
    const later = { ...engine.deps, wallClock: { now: () => Date.now() + 11 * 60_000 } };
    // The filed one is found at once; the other is a first miss only (a provider's search index may lag), and
    // sent again when a second lookup, five minutes of engine time on (milliseconds at this TIME_SCALE), misses too.
    expect((await dispatch(later)).settled).toBe(1);
    expect((await getJob(engine.deps, jobId(ids['lost@x.test']!, 0)))!.state).toBe('CLAIMED');
    await new Promise((r) => setTimeout(r, 50));
    // The dispatcher settles claims at most every 15 s of wall time.
    const laterStill = { ...engine.deps, wallClock: { now: () => Date.now() + 12 * 60_000 } };
    expect((await dispatch(laterStill)).settled).toBe(1);

    expect((await getJob(engine.deps, jobId(ids['filed@x.test']!, 0)))!.state).toBe('SENT');
    await eventually(
      async () => (await getJob(engine.deps, jobId(ids['lost@x.test']!, 0)))?.state === 'SENT',
      30_000,
      'the lost one to be sent again',
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(good.messages.map((m) => m.envelope.to[0])).toEqual(['lost@x.test']);
    const row = (await api.request('GET', '/v1/campaigns')).body.find((c: { id: string }) => c.id === campaign.id);
    expect(row.sentCount).toBe(2);
  });
});

describe('an unknown outcome on a mailbox of any other IMAP server', { timeout: 90_000 }, () => {
  it('goes to the Sent folder only where the server was found to file sent mail, and is taken as sent elsewhere', async () => {
    const api = engine.api;
    const boxes: Record<string, { id: string; campaignId: string }> = {};
    for (const email of [FILER, PLAIN]) {
      const domainName = email.split('@')[1]!;
      const domain = (await api.request('POST', '/v1/domains', { domainName, mailingAddress: '1 Main St' })).body;
      const box = await api.request('POST', '/v1/mailboxes', {
        email,
        domainId: domain.id,
        authPassword: OTHER_PASS,
        dailyCap: 1000,
        smtpHost: '127.0.0.1',
        smtpPort: good.port,
        imapHost: '127.0.0.1',
        imapPort: dovecot.imapPort,
      });
      expect(box.status).toBe(201);
      const campaign = (
        await api.request('POST', '/v1/campaigns', {
          name: email,
          aiPromptTemplate: 'x',
          subject: 'Hi',
          template: 'Hello {{firstName}}, a short note.',
          mailboxIds: [box.body.id],
        })
      ).body;
      boxes[email] = { id: box.body.id, campaignId: campaign.id };
      await api.request('POST', '/v1/leads', { campaignId: campaign.id, email: `first-${domainName}@x.test`, firstName: 'F' });
      expect((await api.request('POST', `/v1/campaigns/${campaign.id}/launch`)).status).toBe(200);
    }
    // Both first emails are accepted; only the filing server keeps a copy in Sent (as a server that files would).
    const firsts = () => good.messages.filter((m) => m.envelope.to[0]!.startsWith('first-'));
    await eventually(async () => firsts().length === 2, 30_000, 'both first emails');
    await dovecot.deliver(FILER, firsts().find((m) => m.envelope.to[0] === 'first-filer.com@x.test')!.raw, 'Sent');
    const filing = async (email: string) =>
      (await engine.deps.store.get(mailboxKey(boxes[email]!.id)))?.sentFiling as { files: boolean } | undefined;
    expect(await filing(FILER)).toBeUndefined();
    // A minute on (the wall clock), the poller looks the accepted email up in each mailbox's Sent folder.
    const later = { ...engine.deps, wallClock: { now: () => Date.now() + 2 * 60_000 } };
    await eventually(
      async () => {
        await pollDue(later);
        return (await filing(FILER)) && (await filing(PLAIN));
      },
      30_000,
      'the filing of both servers to be found out',
    );
    expect(await filing(FILER)).toMatchObject({ files: true });
    expect(await filing(PLAIN)).toMatchObject({ files: false });

    // Now each server drops the connection after taking the message: the outcome of each second email is unknown.
    const second: Record<string, string> = {};
    for (const email of [FILER, PLAIN]) {
      await engine.deps.store.update(mailboxKey(boxes[email]!.id), { set: { smtpPort: dropping.port } });
      second[email] = (
        await api.request('POST', '/v1/leads', {
          campaignId: boxes[email]!.campaignId,
          email: `second-${email.split('@')[1]}@x.test`,
          firstName: 'S',
        })
      ).body.id;
    }
    // The filing server's send waits for its Sent folder, claimed; the other is taken as sent at once, never resent.
    await eventually(
      async () => String((await getJob(engine.deps, jobId(second[FILER]!, 0)))?.lastError ?? '').includes('Sent folder'),
      30_000,
      'the filer in doubt',
    );
    expect((await getJob(engine.deps, jobId(second[FILER]!, 0)))!.state).toBe('CLAIMED');
    const plain = await eventually(
      async () => {
        const job = await getJob(engine.deps, jobId(second[PLAIN]!, 0));
        return job?.state === 'SENT' ? job : undefined;
      },
      30_000,
      'the plain one taken as sent',
    );
    expect(plain.unconfirmed).toBe(true);
    expect(dropping.messages.filter((raw) => /^To: second-plain\.com@x\.test/m.test(raw))).toHaveLength(1);
  });
});
