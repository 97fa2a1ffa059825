import { ImapFlow } from 'imapflow';
import { verifyImap, verifySmtp, type ServerLogin } from '@outbound/mail/signin';
import { isPrivateOrLoopback } from '@outbound/mail/transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, waitForLog, type TestDovecot } from '../helpers/dovecot.ts';
import { closedPort, startSilentServer, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const USER = 'alice@example.test';
const PASS = 'alice-pw';

/** Maps the one made-up name to loopback, as a DNS_SERVERS resolver would. */
const fakeDns = async (host: string): Promise<string> => {
  if (host === 'mail.fake.test') return '127.0.0.1';
  throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

describe('isPrivateOrLoopback', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    'localhost',
    'LOCALHOST',
    'mx.localhost',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.10.10',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '[::1]',
  ])('%s is private or loopback', (value) => {
    expect(isPrivateOrLoopback(value)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '192.169.0.1',
    '11.0.0.1',
    '192.0.2.2',
    '2001:db8::1',
    '::ffff:8.8.8.8',
    'smtp.gmail.com',
    'mail.fake.test',
    '',
    'not an address',
  ])('%s is not', (value) => {
    expect(isPrivateOrLoopback(value)).toBe(false);
  });
});

describe('verifySmtp against a real SMTP server', () => {
  let starttls: TestSmtpServer;
  let implicit: TestSmtpServer;
  let plaintext: TestSmtpServer;

  beforeAll(async () => {
    [starttls, implicit, plaintext] = await Promise.all([
      startSmtpServer({ users: { [USER]: PASS } }),
      startSmtpServer({ users: { [USER]: PASS }, secure: true }),
      startSmtpServer({ users: { [USER]: PASS }, noStartTls: true }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([starttls?.stop(), implicit?.stop(), plaintext?.stop()]);
  });

  const login = (server: TestSmtpServer, more: Partial<ServerLogin> = {}): ServerLogin => ({
    host: server.host,
    port: server.port,
    user: USER,
    pass: PASS,
    ...more,
  });

  it('signs in with the right password, after STARTTLS', async () => {
    expect(await verifySmtp(login(starttls))).toEqual({ ok: true });
    expect(starttls.logins.at(-1)).toEqual({ user: USER, ok: true, secure: true });
  });

  it('signs in over implicit TLS', async () => {
    expect(await verifySmtp(login(implicit, { secure: true }))).toEqual({ ok: true });
    expect(implicit.logins.at(-1)).toEqual({ user: USER, ok: true, secure: true });
  });

  it('sends credentials in clear to a loopback server that offers no STARTTLS', async () => {
    expect(await verifySmtp(login(plaintext))).toEqual({ ok: true });
    expect(plaintext.logins.at(-1)).toEqual({ user: USER, ok: true, secure: false });
  });

  it('never sends credentials in clear to a host reached by name, even one on a private or loopback address', async () => {
    // Someone on the same network can answer for a name, or strip STARTTLS from what the real server offers.
    const before = plaintext.logins.length;
    const result = await verifySmtp(login(plaintext, { host: 'mail.fake.test', resolver: fakeDns }));
    expect(result).toMatchObject({ ok: false });
    expect(result.ok ? '' : result.detail).toMatch(/no encryption/);
    expect(plaintext.logins.length).toBe(before);
  });

  it("answers 'auth' for a wrong password, with the server's text as detail", async () => {
    const result = await verifySmtp(login(starttls, { pass: 'wrong' }));
    expect(result).toMatchObject({ ok: false, reason: 'auth' });
    expect(result.ok ? '' : result.detail).toMatch(/535/);
  });

  it("answers 'connect' when nothing listens", async () => {
    const result = await verifySmtp({ host: '127.0.0.1', port: await closedPort(), user: USER, pass: PASS });
    expect(result).toMatchObject({ ok: false, reason: 'connect' });
  });

  it("answers 'dns' for a host that does not resolve", async () => {
    const result = await verifySmtp({ host: 'no-such-host.invalid', port: 587, user: USER, pass: PASS });
    expect(result).toMatchObject({ ok: false, reason: 'dns' });
  });

  it("answers 'timeout' when the server accepts but never speaks", async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const result = await verifySmtp({ host: '127.0.0.1', port: silent.port, user: USER, pass: PASS, timeoutMs: 1500 });
      expect(result).toMatchObject({ ok: false, reason: 'timeout' });
      // Loose: only that the given timeout, not the 10 s default, applied.
      expect(Date.now() - started).toBeLessThan(9_000);
    } finally {
      await silent.stop();
    }
  });

  it('connects to the address the resolver gives, keeping the name for TLS', async () => {
    expect(await verifySmtp(login(starttls, { host: 'mail.fake.test', resolver: fakeDns }))).toEqual({ ok: true });
    expect(starttls.logins.at(-1)).toEqual({ user: USER, ok: true, secure: true });
  });

  it("answers 'dns' when the resolver fails", async () => {
    const result = await verifySmtp(login(starttls, { host: 'nowhere.fake.test', resolver: fakeDns }));
    expect(result).toMatchObject({ ok: false, reason: 'dns' });
  });
});

describe('verifyImap against a real Dovecot', () => {
  let dovecot: TestDovecot;

  beforeAll(async () => {
    dovecot = await startDovecot({ [USER]: PASS });
  }, 300_000); // the first run on a machine installs Dovecot with apt-get
  afterAll(async () => {
    await dovecot?.stop();
  });

  it('signs in with the right password, after STARTTLS', async () => {
    expect(await verifyImap({ host: dovecot.host, port: dovecot.imapPort, user: USER, pass: PASS })).toEqual({ ok: true });
  });

  it('signs in over implicit TLS on the imaps port', async () => {
    const result = await verifyImap({ host: dovecot.host, port: dovecot.imapsPort, secure: true, user: USER, pass: PASS });
    expect(result).toEqual({ ok: true });
  });

  it('connects to the address the resolver gives', async () => {
    const result = await verifyImap({ host: 'mail.fake.test', port: dovecot.imapPort, user: USER, pass: PASS, resolver: fakeDns });
    expect(result).toEqual({ ok: true });
  });

  it("answers 'auth' for a wrong password", async () => {
    const result = await verifyImap({ host: dovecot.host, port: dovecot.imapPort, user: USER, pass: 'wrong' });
    expect(result).toMatchObject({ ok: false, reason: 'auth' });
  });

  it("answers 'connect' when nothing listens", async () => {
    const result = await verifyImap({ host: '127.0.0.1', port: await closedPort(), user: USER, pass: PASS });
    expect(result).toMatchObject({ ok: false, reason: 'connect' });
  });

  it("answers 'timeout' when the server accepts but never speaks", async () => {
    const silent = await startSilentServer();
    try {
      const result = await verifyImap({ host: '127.0.0.1', port: silent.port, user: USER, pass: PASS, timeoutMs: 1500 });
      expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    } finally {
      await silent.stop();
    }
  });

  it('delivers to INBOX and Junk for later tests', async () => {
    const raw = (subject: string) =>
      `From: Bob <bob@example.test>\r\nTo: ${USER}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@example.test>\r\n\r\nHello.\r\n`;
    await dovecot.deliver(USER, raw('inbox-one'));
    await dovecot.deliver(USER, raw('junk-one'), 'Junk');
    const client = new ImapFlow({
      host: dovecot.host,
      port: dovecot.imapPort,
      auth: { user: USER, pass: PASS },
      logger: false,
      tls: { rejectUnauthorized: false },
    });
    await client.connect();
    try {
      const count = async (path: string) => {
        const status = await client.status(path, { messages: true });
        return status ? status.messages : undefined;
      };
      expect(await count('INBOX')).toBe(1);
      expect(await count('Junk')).toBe(1);
    } finally {
      await client.logout();
    }
  });
});

/**
 * A server on a public address must never see a password in clear or be trusted on a
 * self-signed certificate. Tests may only talk to loopback, so they keep the servers on
 * 127.0.0.1 and pass `isPrivate: () => false`: the adapter then judges 127.0.0.1 as it
 * would judge a public host.
 */
describe('verifySmtp to a server it must treat as public', () => {
  let plaintext: TestSmtpServer;
  let starttls: TestSmtpServer;
  let implicit: TestSmtpServer;

  beforeAll(async () => {
    [plaintext, starttls, implicit] = await Promise.all([
      startSmtpServer({ users: { [USER]: PASS }, noStartTls: true }),
      startSmtpServer({ users: { [USER]: PASS } }),
      startSmtpServer({ users: { [USER]: PASS }, secure: true }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([plaintext?.stop(), starttls?.stop(), implicit?.stop()]);
  });

  const publicLogin = (server: TestSmtpServer, more: Partial<ServerLogin> = {}): ServerLogin => ({
    host: server.host,
    port: server.port,
    user: USER,
    pass: PASS,
    isPrivate: () => false,
    ...more,
  });

  it('refuses to send credentials in clear', async () => {
    const result = await verifySmtp(publicLogin(plaintext));
    expect(result).toMatchObject({ ok: false, reason: 'other' });
    expect(result.ok ? '' : result.detail).toMatch(/offers no encryption/);
    expect(plaintext.logins).toEqual([]);
  });

  it('refuses a self-signed certificate after STARTTLS', async () => {
    const result = await verifySmtp(publicLogin(starttls));
    expect(result).toMatchObject({ ok: false, reason: 'other' });
    expect(starttls.logins).toEqual([]);
  });

  it('refuses a self-signed certificate over implicit TLS', async () => {
    const result = await verifySmtp(publicLogin(implicit, { secure: true }));
    expect(result).toMatchObject({ ok: false, reason: 'other' });
    expect(implicit.logins).toEqual([]);
  });

  it('judges the resolved address, not the name', async () => {
    const seen: string[] = [];
    const isPrivate = (ip: string) => (seen.push(ip), false);
    const result = await verifySmtp(publicLogin(starttls, { host: 'mail.fake.test', resolver: fakeDns, isPrivate }));
    expect(result).toMatchObject({ ok: false, reason: 'other' });
    expect(seen).toEqual(['127.0.0.1']);
    expect(starttls.logins).toEqual([]);
  });

  it('checks the certificate of a name that resolves to a private address, and only relaxes it for loopback and IP literals', async () => {
    // 127.0.0.1 plays a private, non-loopback address (10.x, 192.168.x): credentials may go in clear there,
    // but a name still has a certificate to match, and this one is self-signed.
    const asPrivateName = await verifySmtp(
      publicLogin(starttls, { host: 'mail.fake.test', resolver: fakeDns, isPrivate: () => true, isLoopback: () => false }),
    );
    expect(asPrivateName).toMatchObject({ ok: false, reason: 'other' });
    expect(starttls.logins).toEqual([]);
    // The same name resolving to loopback, and the private IP literal itself, are accepted.
    expect(
      await verifySmtp(publicLogin(starttls, { host: 'mail.fake.test', resolver: fakeDns, isPrivate: () => true, isLoopback: () => true })),
    ).toEqual({ ok: true });
    expect(await verifySmtp(publicLogin(starttls, { isPrivate: () => true }))).toEqual({ ok: true });
  });

  it('the same servers accept the sign-in when the address is private (the control)', async () => {
    expect(await verifySmtp(publicLogin(plaintext, { isPrivate: () => true }))).toEqual({ ok: true });
    expect(await verifySmtp(publicLogin(starttls, { isPrivate: () => true }))).toEqual({ ok: true });
  });
});

describe('verifyImap to a server it must treat as public', () => {
  const PUBLIC_USER = 'public@example.test';
  let dovecot: TestDovecot;

  beforeAll(async () => {
    dovecot = await startDovecot({ [PUBLIC_USER]: PASS });
  }, 300_000);
  afterAll(async () => {
    await dovecot?.stop();
  });

  /**
   * Whether Dovecot saw `user` try to log in: a wrong-password login as a marker user
   * is sent last, and once the marker is in the log, the earlier connections are too.
   */
  async function sawLogin(user: string): Promise<boolean> {
    const marker = `marker-${Math.random().toString(36).slice(2)}@example.test`;
    const control = await verifyImap({ host: dovecot.host, port: dovecot.imapPort, user: marker, pass: 'wrong' });
    expect(control).toMatchObject({ ok: false, reason: 'auth' });
    const text = await waitForLog(dovecot, new RegExp(`user=<${marker.replace(/\./g, '\\.')}>`));
    return text.includes(`user=<${user}>`);
  }

  it('refuses a self-signed certificate after STARTTLS, before any login', async () => {
    const result = await verifyImap({ host: dovecot.host, port: dovecot.imapPort, user: PUBLIC_USER, pass: PASS, isPrivate: () => false });
    expect(result).toMatchObject({ ok: false, reason: 'other' });
    expect(await sawLogin(PUBLIC_USER)).toBe(false);
  });

  it('refuses a self-signed certificate over implicit TLS, before any login', async () => {
    const result = await verifyImap({
      host: dovecot.host,
      port: dovecot.imapsPort,
      secure: true,
      user: PUBLIC_USER,
      pass: PASS,
      isPrivate: () => false,
    });
    expect(result).toMatchObject({ ok: false, reason: 'other' });
    expect(await sawLogin(PUBLIC_USER)).toBe(false);
  });

  it('the same server accepts the login when the address is private (the control)', async () => {
    const result = await verifyImap({ host: dovecot.host, port: dovecot.imapPort, user: PUBLIC_USER, pass: PASS, isPrivate: () => true });
    expect(result).toEqual({ ok: true });
    // The login itself, waited for: a marker line written after it could still reach the log first.
    await waitForLog(dovecot, new RegExp(`Login: user=<${PUBLIC_USER.replace(/\./g, '\\.')}>`));
  });
});
