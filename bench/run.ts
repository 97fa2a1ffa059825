/**
 * `npm run bench`: figures, not pass/fail. Starts the engine in memory on
 * loopback (its own DynamoDB Local) and measures, against the raw limit of
 * the same work where there is one:
 * - login: requests per second and latency percentiles (scrypt dominates);
 * - an authenticated read (GET /v1/campaigns) next to the raw DynamoDB query it does;
 * - CSV import: a 50,000-row, 10 MB file in memory and on disk, as a ratio to csv-parse plus
 *   concurrent BatchWriteItem of the same rows, with store requests per lead (bench/import.ts);
 * - sending (bench/send.ts): emails per second through the whole pipeline to a local SMTP sink at a
 *   high TIME_SCALE, next to raw nodemailer and to the store's own limit for the same requests, with
 *   store and KMS requests per email counted; a launch of 100,000 leads; recovery after SIGKILL
 *   (bench/recovery.ts);
 * - cold starts: every Lambda bundle loaded in a new process, next to the DynamoDB client alone
 *   (bench/cold-start.ts);
 * - inbound: the bounce corpus parsed and classified, next to mailparser alone, and the hostile
 *   messages one at a time; the reply rules over the labelled dev replies in µs per reply, next to
 *   lower-casing and splitting the same texts (bench/inbound.ts). ONLY=api|send|import|cold|inbound runs one part.
 */
import { SMTPServer } from 'smtp-server';
import { startEngine } from '@outbound/local/engine';
import { queryAll } from '@outbound/core/collections';
import { CAMPAIGNS } from '@outbound/core/campaign/keys';
import { importFigures } from './import.ts';
import { launchFigure, sendFigures } from './send.ts';
import { recoveryFigures } from './recovery.ts';
import { coldStartFigures } from './cold-start.ts';
import { inboundFigures } from './inbound.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ADMIN = { email: 'bench@outbound.test', password: 'bench password 123' };

function percentiles(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(1);
  return `p50 ${at(50)} ms, p95 ${at(95)} ms, p99 ${at(99)} ms`;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

async function main() {
  console.log('Starting the engine in memory (DynamoDB Local takes a few seconds)…');
  const engine = await startEngine({
    port: 0,
    dataDir: 'memory',
    admin: ADMIN,
    rateLimits: false,
    timeScale: 1_000_000,
    sink: (l) => {
      if (l.level === 'error') console.error(JSON.stringify(l).slice(0, 600));
    },
  });
  try {
    const post = (path: string, body: unknown, token?: string) =>
      fetch(engine.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });

    // Login
    const logins: number[] = [];
    let token = '';
    const t0 = performance.now();
    for (let i = 0; i < 40; i++) {
      const [res, ms] = await timed(() => post('/v1/auth/login', ADMIN));
      token = ((await res.json()) as { token: string }).token;
      logins.push(ms);
    }
    console.log(`login (sequential, 40):          ${(40 / ((performance.now() - t0) / 1000)).toFixed(1)} req/s; ${percentiles(logins)}`);
    const auth = { authorization: `Bearer ${token}` };

    // Setup for the reads: a campaign with 20 mailboxes (on a sink that takes any login)
    const smtpCount = { n: 0 };
    // A sink on loopback that takes any login (credentials may go in clear to loopback) and counts messages.
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(a, _s, cb) {
        cb(null, { user: a.username });
      },
      onData(stream, _s, cb) {
        stream.resume();
        stream.on('end', () => {
          smtpCount.n++;
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    const smtpPort = (smtp.server.address() as { port: number }).port;
    const domain = (await (await post('/v1/domains', { domainName: 'bench.com', mailingAddress: '1 Bench St' }, token)).json()) as {
      id: string;
    };
    const mailboxIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await post(
        '/v1/mailboxes',
        { email: `m${i}@bench.com`, domainId: domain.id, smtpHost: '127.0.0.1', smtpPort, authPassword: 'x', dailyCap: 1000 },
        token,
      );
      if (res.status !== 201) throw new Error(`mailbox: ${res.status} ${await res.text()}`);
      mailboxIds.push(((await res.json()) as { id: string }).id);
    }
    await (
      await post(
        '/v1/campaigns',
        {
          name: 'Bench',
          aiPromptTemplate: 'x',
          subject: 'Hi {{firstName}}',
          template: 'Hello {{firstName}}, a short note about {{company}}.',
          mailboxIds,
        },
        token,
      )
    ).json();

    // Authenticated read vs the raw query behind it
    const reads: number[] = [];
    for (let i = 0; i < 100; i++) reads.push((await timed(() => fetch(engine.url + '/v1/campaigns', { headers: auth })))[1]);
    const raw: number[] = [];
    for (let i = 0; i < 100; i++) raw.push((await timed(() => queryAll(engine.deps.store, { index: 'gsi1', pk: CAMPAIGNS })))[1]);
    console.log(`GET /v1/campaigns (100):         ${percentiles(reads)}`);
    console.log(`  raw: its campaigns query alone ${percentiles(raw)}`);
  } finally {
    await engine.stop();
  }
}

async function all() {
  const only = process.env.ONLY;
  if (!only || only === 'api') await main();
  if (!only || only === 'send') {
    await sendFigures();
    await recoveryFigures();
    await launchFigure();
  }
  if (!only || only === 'import') await importFigures();
  if (!only || only === 'cold') await coldStartFigures();
  if (!only || only === 'inbound') await inboundFigures();
}

all().catch((err) => {
  console.error(err);
  process.exit(1);
});
