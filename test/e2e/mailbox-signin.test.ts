/**
 * The sign-in check of POST /v1/mailboxes (docs/api.md, Mailboxes: the sign-in check)
 * through the HTTP API of the local runtime, against real servers on loopback: the test
 * SMTP server, a throwaway Dovecot, a closed port, a silent server and a DNS server that
 * knows no name. Every refusal is checked to have saved nothing.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { domainWithAddress } from '../helpers/fixtures.ts';
import { closedPort, startSilentServer, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const PASS = 'right-mailbox-password-42';
const DOMAIN = 'signin-check.com';
/** Mailboxes signing in as their own address (authUsername omitted), all known to both servers. */
const LOCALS = ['ok', 'wrong-smtp', 'closed', 'nowhere', 'both', 'silent', 'dup'] as const;
/** Known to the SMTP server from the start and to Dovecot only once a test adds it. */
const IMAP_LATE = 'imap-late';
const addr = (local: string) => `${local}@${DOMAIN}`;
/** A login that is not an email address, for the authUsername case. */
const LOGIN_NAME = 'carol-login';

/** A DNS server on 127.0.0.1 that answers NXDOMAIN to every question and remembers the names asked. */
async function startNxdomainServer(): Promise<{ port: number; queries: string[]; stop(): Promise<void> }> {
  const queries: string[] = [];
  const socket: UdpSocket = createSocket('udp4');
  socket.on('message', (msg, peer) => {
    if (msg.length < 12) return;
    // The question: labels from byte 12 to the zero label, then QTYPE and QCLASS.
    const labels: string[] = [];
    let at = 12;
    while (at < msg.length && msg[at] !== 0) {
      labels.push(msg.toString('latin1', at + 1, at + 1 + msg[at]!));
      at += 1 + msg[at]!;
    }
    const questionEnd = at + 5;
    if (questionEnd > msg.length) return;
    queries.push(labels.join('.').toLowerCase());
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // the id
    header[2] = 0x80 | (msg[2]! & 0x79); // QR, the opcode and RD as asked
    header[3] = 0x80 | 3; // RA, RCODE 3 = NXDOMAIN
    header.writeUInt16BE(1, 4); // one question, no answers or other records
    socket.send(Buffer.concat([header, msg.subarray(12, questionEnd)]), peer.port, peer.address);
  });
  const port = await new Promise<number>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve(socket.address().port));
  });
  return { port, queries, stop: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}

/** A TCP server that never speaks, like startSilentServer, but that counts the connections it gets. */
async function startCountingSilentServer(): Promise<{ port: number; connections(): number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port,
    connections: () => count,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let engine: TestEngine;
let api: Api;
let smtp: TestSmtpServer;
let dovecot: TestDovecot;
let dns: Awaited<ReturnType<typeof startNxdomainServer>>;
let domainId: string;

beforeAll(async () => {
  const users = Object.fromEntries([...LOCALS.map((l) => [addr(l), PASS]), [LOGIN_NAME, PASS]]);
  [smtp, dovecot, dns] = await Promise.all([
    startSmtpServer({ users: { ...users, [addr(IMAP_LATE)]: PASS } }),
    startDovecot(users),
    startNxdomainServer(),
  ]);
  engine = await startTestEngine({ dnsServers: [`127.0.0.1:${dns.port}`] });
  api = engine.api;
  await api.login();
  domainId = (await domainWithAddress(api, DOMAIN)).id;
}, 300_000); // the first run on a machine installs Dovecot with apt-get
afterAll(async () => {
  await engine?.stop();
  await Promise.all([smtp?.stop(), dovecot?.stop(), dns?.stop()]);
});

/** Settings that sign in: the test SMTP server (STARTTLS) and Dovecot's IMAP port (STARTTLS). */
const good = (local: string, more: Record<string, unknown> = {}) => ({
  email: addr(local),
  domainId,
  smtpHost: '127.0.0.1',
  smtpPort: smtp.port,
  imapHost: '127.0.0.1',
  imapPort: dovecot.imapPort,
  authPassword: PASS,
  ...more,
});

const create = (body: Record<string, unknown>) => api.request('POST', '/v1/mailboxes', body);

async function listed(email: string): Promise<number> {
  const res = await api.request('GET', '/v1/mailboxes');
  expect(res.status).toBe(200);
  return (res.body as { email: string }[]).filter((m) => m.email === email).length;
}

/** The create is refused with this status and sentence, nothing is saved, and the corrected create then succeeds. */
async function expectRefused(body: Record<string, unknown>, status: number, error: string | RegExp, retry: Record<string, unknown>) {
  const res = await create(body);
  expect(res.status).toBe(status);
  if (typeof error === 'string') expect(res.body).toEqual({ error });
  else expect(res.body.error).toMatch(error);
  expect(JSON.stringify(res.body)).not.toContain(PASS);
  expect(await listed(String(body.email))).toBe(0);
  const again = await create(retry);
  expect(again.status).toBe(201);
  expect(again.body).toMatchObject({ email: body.email, status: 'ACTIVE' });
  expect(await listed(String(body.email))).toBe(1);
}

describe('POST /v1/mailboxes signs in before saving', () => {
  it('saves an ACTIVE mailbox when SMTP and IMAP accept the password, and never returns it', async () => {
    const before = smtp.logins.length;
    const res = await create(good('ok'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: addr('ok'), status: 'ACTIVE', smtpHost: '127.0.0.1', imapPort: dovecot.imapPort });
    // Signed in once, as the email (authUsername omitted), after STARTTLS.
    expect(smtp.logins.slice(before)).toEqual([{ user: addr('ok'), ok: true, secure: true }]);
    const list = await api.request('GET', '/v1/mailboxes');
    const everything = JSON.stringify([res.body, list.body]);
    expect(everything).toContain(addr('ok'));
    expect(everything).not.toContain(PASS);
    expect(everything).not.toMatch(/authPassword|sealed/i);
  });

  it('answers 422 naming SMTP when the SMTP server refuses the password', async () => {
    const before = smtp.logins.length;
    await expectRefused(
      good('wrong-smtp', { authPassword: 'not-the-password' }),
      422,
      'The SMTP server refused the sign-in: check the username and password.',
      good('wrong-smtp'),
    );
    expect(smtp.logins.slice(before)).toEqual([
      { user: addr('wrong-smtp'), ok: false, secure: true },
      { user: addr('wrong-smtp'), ok: true, secure: true },
    ]);
  });

  it('answers 422 naming IMAP when only the IMAP server refuses', async () => {
    // The SMTP server knows this login and Dovecot does not, until the mailbox is set up there.
    const res = await create(good(IMAP_LATE));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'The IMAP server refused the sign-in: check the username and password.' });
    expect(smtp.logins.at(-1)).toEqual({ user: addr(IMAP_LATE), ok: true, secure: true });
    expect(await listed(addr(IMAP_LATE))).toBe(0);
    await dovecot.addUser(addr(IMAP_LATE), PASS);
    const again = await create(good(IMAP_LATE));
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(await listed(addr(IMAP_LATE))).toBe(1);
  });

  it('signs in as authUsername, not the email, when it is given', async () => {
    // Both servers know only LOGIN_NAME: signing in as the email is refused.
    await expectRefused(
      good('carol'),
      422,
      'The SMTP server refused the sign-in: check the username and password.',
      good('carol', { authUsername: LOGIN_NAME }),
    );
    expect(smtp.logins.slice(-2)).toEqual([
      { user: addr('carol'), ok: false, secure: true },
      { user: LOGIN_NAME, ok: true, secure: true },
    ]);
  });

  it('answers 422 when nothing listens on the SMTP port', async () => {
    const port = await closedPort();
    await expectRefused(
      good('closed', { smtpPort: port }),
      422,
      `Could not connect to the SMTP server at 127.0.0.1 on port ${port}: check the host and port.`,
      good('closed'),
    );
  });

  it('answers 422 when the SMTP host does not resolve, asking the DNS_SERVERS', async () => {
    await expectRefused(
      good('nowhere', { smtpHost: 'mail.nowhere-at-all.com' }),
      422,
      'The SMTP host mail.nowhere-at-all.com does not resolve: check its name.',
      good('nowhere'),
    );
    expect(dns.queries).toContain('mail.nowhere-at-all.com');
  });

  it('reports the SMTP failure when both servers fail', async () => {
    await expectRefused(
      good('both', { authPassword: 'not-the-password', imapPort: await closedPort() }),
      422,
      'The SMTP server refused the sign-in: check the username and password.',
      good('both'),
    );
  });

  it('never contacts hosts under .test, .example or .invalid', async () => {
    const before = smtp.logins.length;
    const started = Date.now();
    const res = await create({
      email: addr('reserved'),
      domainId,
      smtpHost: 'smtp.mail.test',
      smtpPort: 587,
      imapHost: 'imap.mail.example',
      authPassword: PASS,
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('ACTIVE');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(dns.queries.filter((name) => /(^|\.)(test|example|invalid)$/.test(name))).toEqual([]);
    expect(smtp.logins.length).toBe(before);
    expect(await listed(addr('reserved'))).toBe(1);
  });

  it('answers 409 for an address already connected before contacting any server', async () => {
    const first = await create(good('dup'));
    expect(first.status).toBe(201);
    const silent = await startCountingSilentServer();
    try {
      const started = Date.now();
      const res = await create(good('dup', { email: addr('DUP'), smtpPort: silent.port, imapPort: silent.port }));
      // A contacted silent server would hold the call for the 10 s sign-in timeout.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: `The mailbox ${addr('dup')} is already connected.` });
      expect(silent.connections()).toBe(0);
      expect(await listed(addr('dup'))).toBe(1);
    } finally {
      await silent.stop();
    }
  });

  it('answers 422 when the SMTP server does not answer within 10 seconds', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      await expectRefused(
        good('silent', { smtpPort: silent.port }),
        422,
        `The SMTP server at 127.0.0.1 on port ${silent.port} did not answer within 10 seconds.`,
        good('silent'),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
    } finally {
      await silent.stop();
    }
  }, 30_000);
});
