/**
 * The recovery figure of `npm run bench`: the engine (in a process group of
 * its own, with its DynamoDB Local) is SIGKILLed while a campaign's mail
 * flows, and started again on the same DATA_DIR; printed is the time from
 * the new engine answering to the next email the SMTP server receives.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SMTPServer } from 'smtp-server';

const ROOT = resolve(import.meta.dirname, '..');
const ADMIN = { email: 'bench@outbound.test', password: 'bench password 123' };
const SCALE = 100_000;

function start(dataDir: string): Promise<{ child: ChildProcess; url: string; answeredAt: number }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      resolve(ROOT, 'test/helpers/engine-process.ts'),
      JSON.stringify({ dataDir, timeScale: SCALE, admin: ADMIN, rateLimits: false }),
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    },
  );
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening (\S+)/.exec(out);
      if (m) ok({ child, url: m[1]!, answeredAt: Date.now() });
    });
    child.once('exit', () => fail(new Error('the engine exited before it answered')));
  });
}

async function kill(child: ChildProcess) {
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

async function until(check: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('mail did not flow');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function recoveryFigures(rounds = 4): Promise<void> {
  const received = { n: 0 };
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth: (a, _s, cb) => cb(null, { user: a.username }),
    onData(stream, _s, cb) {
      stream.resume();
      stream.on('end', () => (received.n++, cb()));
    },
  });
  // A killed engine resets its connections: nothing to report.
  smtp.on('error', () => {});
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const port = (smtp.server.address() as { port: number }).port;
  const dataDir = await mkdtemp(join(tmpdir(), 'outbound-recovery-'));
  let engine = await start(dataDir);
  try {
    const token = (
      (await (
        await fetch(`${engine.url}/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ADMIN),
        })
      ).json()) as { token: string }
    ).token;
    const call = async (path: string, body: unknown) =>
      (await (
        await fetch(engine.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        })
      ).json()) as { id: string };
    const domain = await call('/v1/domains', { domainName: 'recovery.com', mailingAddress: '1 Main St' });
    const mailboxIds: string[] = [];
    for (let i = 0; i < 10; i++)
      mailboxIds.push(
        (
          await call('/v1/mailboxes', {
            email: `m${i}@recovery.com`,
            domainId: domain.id,
            smtpHost: '127.0.0.1',
            smtpPort: port,
            authPassword: 'x',
            dailyCap: 1000,
          })
        ).id,
      );
    const campaign = await call('/v1/campaigns', {
      name: 'Recovery',
      aiPromptTemplate: 'x',
      subject: 'Hi',
      template: 'Hello {{firstName}}.',
      mailboxIds,
    });
    const form = new FormData();
    form.append('campaignId', campaign.id);
    form.append(
      'file',
      new Blob(['email,first name\n' + Array.from({ length: 2000 }, (_, i) => `r${i}@example.org,R${i}`).join('\n')]),
      'r.csv',
    );
    await fetch(`${engine.url}/v1/leads/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    await call(`/v1/campaigns/${campaign.id}/launch`, {});
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const before = received.n;
      await until(() => received.n > before + 20, 60_000);
      await kill(engine.child);
      const after = received.n;
      engine = await start(dataDir);
      await until(() => received.n > after, 60_000);
      times.push(Date.now() - engine.answeredAt);
    }
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `recovery (SIGKILL while mail flows, restart on the same DATA_DIR, ${rounds} times): the next email ${times.map((t) => `${t} ms`).join(', ')} after the engine answered; median ${sorted[Math.floor(sorted.length / 2)]} ms`,
    );
  } finally {
    await kill(engine.child).catch(() => undefined);
    await new Promise<void>((r) => smtp.close(() => r()));
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  recoveryFigures().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
