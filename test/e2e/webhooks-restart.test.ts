/**
 * Outbound webhook events survive a killed engine: events owed to a receiver
 * that is down when the engine is killed (SIGKILL, DynamoDB Local with it)
 * reach it after the restart on the same DATA_DIR, with the ids they had.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook as Verifier } from 'standardwebhooks';
import { ADMIN, Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, eventually, mailbox } from '../helpers/fixtures.ts';
import { startEngineProcess as spawnEngine } from '../helpers/process.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const SCALE = 1000;
let dataDir: string;
let child: ChildProcess | undefined;
let after: TestEngine | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  await after?.stop();
  await receiver?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The engine in a process group of its own (SIGKILL takes DynamoDB Local with it), on this test's DATA_DIR. */
const startEngineProcess = () => spawnEngine({ dataDir, timeScale: SCALE, admin: ADMIN, rateLimits: false });

describe('an engine killed while events are owed', { timeout: 240_000 }, () => {
  it('delivers them after the restart, with the ids they had', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-webhooks-restart-'));
    receiver = await startReceiver();
    receiver.answer = () => 503;
    const started = await startEngineProcess();
    child = started.child;
    const api = new Api(started.url);
    await api.login();
    const hook = (await api.request('POST', '/v1/webhooks', { url: receiver.url, events: ['campaign.paused'] })).body;
    const domain = await domainWithAddress(api, 'restart.com');
    const box = await mailbox(api, domain, 'sales');
    const c = await campaign(api, { mailboxIds: [box.id] });
    // Two pauses, two facts: each gives its own event.
    for (let i = 0; i < 2; i++) {
      expect((await api.request('POST', `/v1/campaigns/${c.id}/launch`)).status).toBe(200);
      expect((await api.request('POST', `/v1/campaigns/${c.id}/pause`)).status).toBe(200);
    }
    const ids = await eventually(
      async () => {
        const seen = new Set(receiver!.received.map((r) => r.headers['webhook-id']));
        return seen.size === 2 && seen;
      },
      60_000,
      'a first, failed attempt of both events',
    );

    process.kill(-child.pid!, 'SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    receiver.answer = () => 200;
    const failedBefore = receiver.received.length;

    after = await startTestEngine({ dataDir, tableName: 'outbound', admin: undefined, realTime: true, timeScale: SCALE });
    const delivered = await eventually(
      async () => {
        const ok = receiver!.received.slice(failedBefore).filter((r) => r.answered === 200);
        const got = new Set(ok.map((r) => r.headers['webhook-id']));
        return got.size === 2 && ok;
      },
      90_000,
      'both events after the restart',
    );
    expect(new Set(delivered.map((r) => r.headers['webhook-id']))).toEqual(ids);
    for (const r of delivered)
      expect(new Verifier(hook.secret).verify(r.body, r.headers)).toMatchObject({
        type: 'campaign.paused',
        data: { campaignId: c.id, reason: 'manual' },
      });
  });
});
