/**
 * The send figures of `npm run bench`: a campaign's first emails through the
 * whole pipeline (dispatcher, queue, sender, SMTP) at a high TIME_SCALE from
 * 20 mailboxes to a local SMTP sink, next to the raw limit of the same work
 * in the same run: pooled nodemailer sending the same number of messages to
 * the same sink. The store and KMS requests are counted by middleware on the
 * engine's clients; a request is the sender's when `sendJob` is on its stack.
 */
import { randomUUID } from 'node:crypto';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Deep enough to see sendJob below the SDK's middleware frames.
Error.stackTraceLimit = 200;
import { SMTPServer } from 'smtp-server';
import { createTransport } from 'nodemailer';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startEngine } from '@outbound/local/engine';
import type { Store } from '@outbound/core/ports/store';

const ADMIN = { email: 'bench@outbound.test', password: 'bench password 123' };
const MAILBOXES = 20;

/** Counts requests by command, and apart those made on the send path (sendJob on the async stack). */
function counter(client: DynamoDBClient | KMSClient) {
  const all = new Map<string, number>();
  const sender = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  (client.middlewareStack as DynamoDBClient['middlewareStack']).add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '?';
      bump(all, name);
      if (/sendJob|sendOne|markStartAndSend|recordAccepted/.test(new Error().stack ?? '')) bump(sender, name);
      return next(args);
    },
    { step: 'initialize', name: `benchSendCounter${randomUUID()}` },
  );
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return {
    reset: () => (all.clear(), sender.clear()),
    total: () => sum(all),
    sender: () => sum(sender),
    senderBy: () => Object.fromEntries(sender),
    allBy: () => Object.fromEntries(all),
  };
}

function sink() {
  const count = { n: 0 };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    maxClients: 200,
    onAuth(a, _s, cb) {
      cb(null, { user: a.username });
    },
    onData(stream, _s, cb) {
      stream.resume();
      stream.on('end', () => {
        count.n++;
        cb();
      });
    },
  });
  server.on('error', () => {});
  return { count, server };
}

async function until(check: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/** Raw pooled nodemailer: n messages to the sink over one pool per mailbox, all at once. */
async function rawRate(port: number, count: { n: number }, n: number, connections = 1): Promise<number> {
  const pools = Array.from({ length: MAILBOXES }, (_, i) =>
    createTransport({
      pool: true,
      maxConnections: connections,
      maxMessages: Infinity,
      host: '127.0.0.1',
      port,
      secure: false,
      ignoreTLS: true,
      auth: { user: `m${i}@bench.com`, pass: 'x' },
    }),
  );
  const before = count.n;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      pools[i % MAILBOXES]!.sendMail({
        from: `m${i % MAILBOXES}@bench.com`,
        to: `r${i}@example.org`,
        subject: `Hi R${i}`,
        text: 'Hello, a short note.\n\n1 Bench St\nUnsubscribe: http://x/u',
      }),
    ),
  );
  await until(() => count.n - before >= n, 10_000);
  const rate = n / ((performance.now() - start) / 1000);
  for (const p of pools) p.close();
  return rate;
}

/**
 * The store's own limit for the same work: per email, the requests the send
 * path makes (a batch read of 6 items, a claim transaction of 7 operations,
 * one conditional update, a record transaction of 7 operations), straight
 * against the same DynamoDB Local with as many in flight as the engine's
 * senders (4 invocations of 10).
 */
async function rawStoreRate(store: Store, n: number): Promise<number> {
  const run = randomUUID();
  const key = (i: number, k: number) => ({ pk: `RAW#${run}#${i}#${k}`, sk: 'X' });
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 40 }, async () => {
      while (next < n) {
        const i = next++;
        await store.batchGet([0, 1, 2, 3, 4, 5].map((k) => key(i, k)));
        await store.transact([0, 1, 2, 3, 4, 5, 6].map((k) => ({ update: key(i, k), change: { set: { claimed: true } } })));
        await store.update(key(i, 0), { set: { started: true }, if: { itemExists: true } });
        await store.transact([0, 1, 2, 3, 4, 5, 6].map((k) => ({ update: key(i, k + 7), change: { set: { sent: true } } })));
      }
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

export async function sendFigures(n = Number(process.env.SEND_N ?? 1000)): Promise<void> {
  const { count, server } = sink();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as { port: number }).port;
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
    const dynamo = counter(engine.clients.dynamo);
    const kms = counter(engine.clients.kms);
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(engine.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ id: string }>;
    };
    const login = await fetch(engine.url + '/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await login.json()) as { token: string }).token;
    const domain = await call('POST', '/v1/domains', token, { domainName: 'bench.com', mailingAddress: '1 Bench St' });
    const mailboxIds: string[] = [];
    for (let i = 0; i < MAILBOXES; i++) {
      mailboxIds.push(
        (
          await call('POST', '/v1/mailboxes', token, {
            email: `m${i}@bench.com`,
            domainId: domain.id,
            smtpHost: '127.0.0.1',
            smtpPort: port,
            authPassword: 'x',
            dailyCap: 1000,
          })
        ).id,
      );
    }
    // VARIANTS=n (2 to 6) gives the campaign n variants of its first email: each send then also chooses and counts one.
    const variantCount = Number(process.env.VARIANTS ?? 0);
    const variants = variantCount
      ? {
          variants: Array.from({ length: variantCount }, (_, v) => ({
            subject: `Hi {{firstName}} (${v})`,
            template: `Hello {{firstName}}, short note ${v}.`,
          })),
        }
      : {};
    const campaign = await call('POST', '/v1/campaigns', token, {
      name: 'Send',
      aiPromptTemplate: 'x',
      subject: 'Hi {{firstName}}',
      template: 'Hello {{firstName}}, a short note.',
      mailboxIds,
      ...variants,
    });
    const form = new FormData();
    form.append('campaignId', campaign.id);
    form.append(
      'file',
      new Blob(['email,first name\n' + Array.from({ length: n }, (_, i) => `s${i}@example.org,S${i}`).join('\n')], { type: 'text/csv' }),
      's.csv',
    );
    await fetch(engine.url + '/v1/leads/import', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });

    dynamo.reset();
    kms.reset();
    const before = count.n;
    const start = performance.now();
    await call('POST', `/v1/campaigns/${campaign.id}/launch`, token);
    // The first 10 % warm the process (mailbox passwords opened, pools connected); the rate is of the rest.
    await until(() => count.n - before >= n / 10, 120_000);
    const warm = { at: performance.now(), sent: count.n - before, kms: kms.total(), dynamo: dynamo.sender() };
    await until(() => count.n - before >= n, 300_000);
    const sent = count.n - before;
    const seconds = (performance.now() - start) / 1000;
    const steady = (sent - warm.sent) / ((performance.now() - warm.at) / 1000);
    // The records of the last sends land just after their SMTP answers.
    await new Promise((r) => setTimeout(r, 500));
    const counted = {
      total: dynamo.total(),
      sender: dynamo.sender(),
      senderBy: dynamo.senderBy(),
      allBy: dynamo.allBy(),
      kms: kms.total(),
    };
    const raw = await rawRate(port, count, Math.max(n, 2000));
    const rawWide = await rawRate(port, count, Math.max(n, 2000), 5);
    const rawStore = await rawStoreRate(engine.deps.store, Math.min(n, 1000));

    console.log(
      `send pipeline (${n} leads, ${MAILBOXES} mailboxes, TIME_SCALE 1e6${variantCount ? `, ${variantCount} variants` : ''}): ${sent} sent in ${seconds.toFixed(1)} s; steady ${steady.toFixed(1)} emails/s`,
    );
    console.log(
      `  raw: pooled nodemailer to the same sink, one connection per mailbox as the engine uses: ${raw.toFixed(0)} emails/s; ratio ${(steady / raw).toFixed(3)}x`,
    );
    console.log(
      `  raw: pooled nodemailer, five connections per mailbox: ${rawWide.toFixed(0)} emails/s; ratio ${(steady / rawWide).toFixed(3)}x`,
    );
    console.log(
      `  raw: the send path's store requests alone against the same DynamoDB Local: ${rawStore.toFixed(0)} emails/s; ratio ${(steady / rawStore).toFixed(3)}x`,
    );
    console.log(
      `  store requests on the send path: ${(counted.sender / sent).toFixed(2)} per email ${JSON.stringify(counted.senderBy)}; ` +
        `${((counted.sender - warm.dynamo) / Math.max(1, sent - warm.sent)).toFixed(2)} per email after the first ${warm.sent} (a process's first sends also read the installation's secrets)`,
    );
    console.log(
      `  store requests in all (dispatcher, planning, launch included): ${(counted.total / sent).toFixed(2)} per email ${JSON.stringify(counted.allBy)}`,
    );
    console.log(
      `  KMS requests: ${counted.kms} in all, ${counted.kms - warm.kms} after the first ${warm.sent} emails (${((counted.kms - warm.kms) / Math.max(1, sent - warm.sent)).toFixed(3)} per email)`,
    );
  } finally {
    await engine.stop();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** Launching a campaign of 100,000 leads (imported in two files of 50,000): how long the launch takes to answer. */
export async function launchFigure(leads = 100_000): Promise<void> {
  // The mailbox's sign-in is checked when it is added; nothing is sent.
  const { server } = sink();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const smtpPort = (server.server.address() as { port: number }).port;
  const engine = await startEngine({
    port: 0,
    dataDir: 'memory',
    admin: ADMIN,
    rateLimits: false,
    sending: false,
    sink: (l) => {
      if (l.level === 'error') console.error(JSON.stringify(l).slice(0, 600));
    },
  });
  try {
    const login = await fetch(engine.url + '/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await login.json()) as { token: string }).token;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(engine.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown> & { id: string }>;
    };
    const domain = await call('POST', '/v1/domains', { domainName: 'launch.com', mailingAddress: '1 Launch St' });
    const box = await call('POST', '/v1/mailboxes', {
      email: 'm@launch.com',
      domainId: domain.id,
      smtpHost: '127.0.0.1',
      smtpPort,
      authPassword: 'x',
      dailyCap: 1000,
    });
    const campaign = await call('POST', '/v1/campaigns', {
      name: 'Launch',
      aiPromptTemplate: 'x',
      subject: 'Hi',
      template: 'Hello {{firstName}}.',
      mailboxIds: [box.id],
    });
    for (let file = 0; file < leads / 50_000; file++) {
      const form = new FormData();
      form.append('campaignId', campaign.id);
      form.append(
        'file',
        new Blob(['email,first name\n' + Array.from({ length: 50_000 }, (_, i) => `l${file}x${i}@example.org,L${i}`).join('\n')]),
        'l.csv',
      );
      const res = await fetch(engine.url + '/v1/leads/import', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      let job = (await res.json()) as { importId: string; status: string };
      while (job.status !== 'COMPLETED') {
        if (job.status === 'FAILED') throw new Error('the import failed');
        await new Promise((r) => setTimeout(r, 500));
        job = (await call('GET', `/v1/leads/imports/${job.importId}`)) as unknown as typeof job;
      }
    }
    const start = performance.now();
    await call('POST', `/v1/campaigns/${campaign.id}/launch`);
    const ms = performance.now() - start;
    const listed = (await call('GET', '/v1/campaigns')) as unknown as {
      id: string;
      progress: { total: number; planned: number; planning: boolean };
    }[];
    const progress = listed.find((c) => c.id === campaign.id)!.progress;
    console.log(
      `launch of a ${progress.total}-lead campaign: answered in ${ms.toFixed(0)} ms with ${progress.planned} planned; planning goes on in the background (planning: ${progress.planning})`,
    );
  } finally {
    await engine.stop();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  sendFigures().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
