import type { MailboxTransport, OutgoingEmail } from '@outbound/core/ports/mailer';
import { classifySmtpError, smtpMailer } from '@outbound/mail/mailer';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startFaultySmtpServer, type FaultySmtpServer, type FaultySmtpServerOptions } from '../helpers/smtp-faults.ts';
import { closedPort, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const SENDER = 'ada@sender.test';
const PASSWORD = 'mailbox-pw';

const servers: Array<TestSmtpServer | FaultySmtpServer> = [];
const mailers: Array<ReturnType<typeof smtpMailer>> = [];

afterEach(async () => {
  await Promise.all(mailers.splice(0).map((m) => m.close()));
});
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function mailer() {
  const warnings: string[] = [];
  const m = smtpMailer({ timeoutMs: 5_000, log: { warn: (msg) => warnings.push(msg) } });
  mailers.push(m);
  return Object.assign(m, { warnings });
}

async function plainServer(): Promise<TestSmtpServer> {
  const s = await startSmtpServer({ users: { [SENDER]: PASSWORD } });
  servers.push(s);
  return s;
}

async function faultyServer(opts: FaultySmtpServerOptions = {}): Promise<FaultySmtpServer> {
  const s = await startFaultySmtpServer({ users: { [SENDER]: PASSWORD }, ...opts });
  servers.push(s);
  return s;
}

function transport(port: number, overrides: Partial<MailboxTransport> = {}): MailboxTransport {
  return { mailboxId: 'mbx-1', host: '127.0.0.1', port, user: SENDER, auth: { type: 'password', pass: PASSWORD }, ...overrides };
}

let seq = 0;
function email(overrides: Partial<OutgoingEmail> = {}): OutgoingEmail {
  seq += 1;
  return {
    from: { name: 'Ada Lovelace', address: SENDER },
    to: 'lead@prospect.test',
    subject: 'Quick question',
    text: 'Hello Grace,\n\nA short note.\n',
    messageId: `01JMAILERTEST${seq}@sender.test`,
    headers: {
      'List-Unsubscribe': '<https://outbound.example.test/unsubscribe/tok.abc-123_XYZ>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    ...overrides,
  };
}

/** Header fields as written (unfolded, RFC 5322 section 2.2.3), names lower-cased. */
function headerFields(raw: string): Map<string, string[]> {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const fields = new Map<string, string[]>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    fields.set(name, [...(fields.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return fields;
}

describe('smtpMailer against a real SMTP server', () => {
  it('sends with the exact threading and unsubscribe headers, from the mailbox, as text/plain', async () => {
    const server = await plainServer();
    const m = mailer();
    const result = await m.send(
      transport(server.port),
      email({
        messageId: '01JTHREAD3@sender.test',
        inReplyTo: '01JTHREAD2@sender.test',
        references: ['01JTHREAD1@sender.test', '01JTHREAD2@sender.test'],
      }),
    );
    expect(result).toMatchObject({ ok: true });
    const [received] = await server.waitFor(1);
    const fields = headerFields(received!.raw);

    expect(fields.get('message-id')).toEqual(['<01JTHREAD3@sender.test>']);
    expect(fields.get('in-reply-to')).toEqual(['<01JTHREAD2@sender.test>']);
    expect(fields.get('references')).toEqual(['<01JTHREAD1@sender.test> <01JTHREAD2@sender.test>']);
    expect(fields.get('list-unsubscribe')).toEqual(['<https://outbound.example.test/unsubscribe/tok.abc-123_XYZ>']);
    expect(fields.get('list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click']);
    expect(fields.get('content-type')?.[0]).toMatch(/^text\/plain\b/);
    expect(fields.get('from')?.[0]).toMatch(/^"?Ada Lovelace"? <ada@sender\.test>$/);

    expect(received!.envelope).toEqual({ from: SENDER, to: ['lead@prospect.test'] });
    const from = received!.headers.get('from') as { value: Array<{ name: string; address: string }> };
    expect(from.value).toEqual([{ name: 'Ada Lovelace', address: SENDER }]);
    expect(received!.subject).toBe('Quick question');
    expect(received!.text?.trim()).toBe('Hello Grace,\n\nA short note.');
  });

  it('upgrades with STARTTLS before signing in (self-signed accepted on loopback)', async () => {
    const server = await faultyServer();
    const result = await mailer().send(transport(server.port), email());
    expect(result).toMatchObject({ ok: true });
    expect(server.transactions).toEqual([{ secure: true, user: SENDER, mailFrom: SENDER }]);
  });

  it('reuses one pooled connection for two sends from the same mailbox, and opens a new one when the credentials change', async () => {
    const server = await faultyServer({ users: { [SENDER]: PASSWORD, 'other@sender.test': 'other-pw' } });
    const m = mailer();
    const [first, second] = await Promise.all([m.send(transport(server.port), email()), m.send(transport(server.port), email())]);
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: true });
    expect(server.transactions).toHaveLength(2);
    expect(server.connections()).toBe(1);

    const third = await m.send(
      transport(server.port, { user: 'other@sender.test', auth: { type: 'password', pass: 'other-pw' } }),
      email(),
    );
    expect(third).toMatchObject({ ok: true });
    expect(server.connections()).toBe(2);
    expect(server.transactions[2]?.user).toBe('other@sender.test');
  });

  it('signs in with XOAUTH2 for an OAuth mailbox, and reports a refused token as auth', async () => {
    const server = await faultyServer({ accessTokens: { [SENDER]: 'fresh-token' } });
    const m = mailer();
    const ok = await m.send(transport(server.port, { auth: { type: 'oauth2', accessToken: 'fresh-token' } }), email());
    expect(ok).toMatchObject({ ok: true });
    expect(server.transactions[0]).toMatchObject({ user: SENDER, secure: true });

    const refused = await m.send(transport(server.port, { auth: { type: 'oauth2', accessToken: 'stale-token' } }), email());
    expect(refused).toMatchObject({ ok: false, kind: 'auth' });
    expect(server.messages).toHaveLength(1);
  });

  it('connects to the address the resolver gives, and reports a failed resolution as connection', async () => {
    const server = await faultyServer();
    const asked: string[] = [];
    const m = smtpMailer({
      timeoutMs: 5_000,
      resolver: async (host) => {
        asked.push(host);
        if (host === 'smtp.mailbox.test') return '127.0.0.1';
        throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    mailers.push(m);
    expect(await m.send(transport(server.port, { host: 'smtp.mailbox.test' }), email())).toMatchObject({ ok: true });
    const missing = await m.send(transport(server.port, { mailboxId: 'mbx-2', host: 'nowhere.mailbox.test' }), email());
    expect(missing).toMatchObject({ ok: false, kind: 'connection' });
    expect(missing.ok === false && missing.detail).toContain('ENOTFOUND');
    expect(asked).toEqual(['smtp.mailbox.test', 'nowhere.mailbox.test']);
  });

  it('never sends the password in clear to a host reached by name, even one that resolves to this machine', async () => {
    const server = await startSmtpServer({ users: { [SENDER]: PASSWORD }, noStartTls: true });
    servers.push(server);
    const m = smtpMailer({ timeoutMs: 5_000, resolver: async () => '127.0.0.1' });
    mailers.push(m);
    const result = await m.send(transport(server.port, { host: 'smtp.mailbox.test' }), email());
    expect(result).toMatchObject({ ok: false });
    expect(server.logins).toHaveLength(0);
    expect(server.messages).toHaveLength(0);
    // The same server by its IP literal, the owner's explicit choice, is taken in clear.
    expect(await mailer().send(transport(server.port), email())).toMatchObject({ ok: true });
  });

  it('reports a refused sign-in as auth', async () => {
    const server = await plainServer();
    const result = await mailer().send(transport(server.port, { auth: { type: 'password', pass: 'wrong' } }), email());
    expect(result).toMatchObject({ ok: false, kind: 'auth', code: 535 });
    expect(server.messages).toHaveLength(0);
  });

  it('reports a 550 at RCPT TO as permanent and a 451 as temporary, with the server text', async () => {
    const server = await faultyServer({ rejectRecipients: { 'gone@prospect.test': 550, 'busy@prospect.test': 451 } });
    const m = mailer();
    const gone = await m.send(transport(server.port), email({ to: 'gone@prospect.test' }));
    expect(gone).toMatchObject({ ok: false, kind: 'permanent', code: 550 });
    expect(gone.ok === false && gone.detail).toContain('No such user here');

    const busy = await m.send(transport(server.port), email({ to: 'busy@prospect.test' }));
    expect(busy).toMatchObject({ ok: false, kind: 'temporary', code: 451 });

    // The pool recovers: the next send to a good address goes through.
    expect(await m.send(transport(server.port), email())).toMatchObject({ ok: true });
    expect(server.messages).toHaveLength(1);
  });

  it('reports a closed port as connection', async () => {
    const port = await closedPort();
    const result = await mailer().send(transport(port), email());
    expect(result).toMatchObject({ ok: false, kind: 'connection' });
  });

  it('reports a connection dropped after the message was handed over as unknown (never resent)', async () => {
    const server = await faultyServer({ dropAfterData: true });
    const m = mailer();
    const result = await m.send(transport(server.port), email());
    expect(result).toMatchObject({ ok: false, kind: 'unknown' });
    expect(m.warnings).toHaveLength(1);
    // The server did read the message: a blind resend would be a duplicate. Give a
    // requeueing pool the time to try again, and check it did not.
    await new Promise((r) => setTimeout(r, 500));
    expect(server.messages).toHaveLength(1);
    expect(server.transactions).toHaveLength(1);
  });
});

describe('the message held back until the caller has marked the start of SMTP (beforeMessage)', { timeout: 30_000 }, () => {
  it('runs the hook once the server has accepted DATA, before any of the message has gone', async () => {
    const server = await faultyServer();
    const m = mailer();
    const seen: { transactions: number; messages: number }[] = [];
    const result = await m.send(transport(server.port), email(), {
      beforeMessage: async () => {
        seen.push({ transactions: server.transactions.length, messages: server.messages.length });
      },
    });
    expect(result).toMatchObject({ ok: true });
    // The envelope was accepted (MAIL FROM seen), and nothing of the message yet.
    expect(seen).toEqual([{ transactions: 1, messages: 0 }]);
    expect(server.messages).toHaveLength(1);
  });

  it('sends nothing when the hook throws, answers connection, and the next send on the mailbox goes as usual', async () => {
    const server = await plainServer();
    const m = mailer();
    const held = await m.send(transport(server.port), email({ subject: 'Held back' }), {
      beforeMessage: async () => {
        throw new Error('the claim was settled by someone else');
      },
    });
    expect(held).toMatchObject({ ok: false, kind: 'connection', detail: expect.stringContaining('held back') });
    expect(await m.send(transport(server.port), email({ subject: 'Goes' }), { beforeMessage: async () => undefined })).toMatchObject({
      ok: true,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(server.messages.map((msg) => msg.subject)).toEqual(['Goes']);
  });

  it('never runs the hook for a send refused before DATA', async () => {
    const server = await faultyServer({ rejectRecipients: { 'gone@prospect.test': 550 } });
    let calls = 0;
    const result = await mailer().send(transport(server.port), email({ to: 'gone@prospect.test' }), {
      beforeMessage: async () => void calls++,
    });
    expect(result).toMatchObject({ ok: false, kind: 'permanent', code: 550 });
    expect(calls).toBe(0);
  });
});

describe('classifySmtpError', () => {
  const cases: Array<[string, object, Parameters<typeof classifySmtpError>[1], string]> = [
    [
      '5xx at RCPT',
      { code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 no such user' },
      'before-message',
      'permanent',
    ],
    [
      '5xx at DATA',
      { code: 'EENVELOPE', command: 'DATA', responseCode: 554, response: '554 no valid recipients' },
      'before-message',
      'permanent',
    ],
    ['5xx to the message', { code: 'EMESSAGE', command: 'DATA', responseCode: 552, response: '552 too big' }, 'message', 'permanent'],
    ['4xx to the message', { code: 'EMESSAGE', command: 'DATA', responseCode: 451, response: '451 later' }, 'message', 'temporary'],
    [
      '5xx to MAIL FROM',
      { code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 553, response: '553 not your address' },
      'before-message',
      'auth',
    ],
    ['EAUTH', { code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535, response: '535 bad' }, 'before-message', 'auth'],
    ['DNS', { code: 'EDNS', command: 'CONN' }, 'before-message', 'connection'],
    ['timeout before the message', { code: 'ETIMEDOUT', command: 'CONN' }, 'before-message', 'connection'],
    ['close after the message', { code: 'ECONNECTION', command: 'CONN' }, 'message', 'unknown'],
    ['timeout after the message', { code: 'ETIMEDOUT', command: 'CONN' }, 'message', 'unknown'],
    ['reset on DATA, stage not known', { code: 'ESOCKET', errno: 'ECONNRESET', command: 'DATA' }, undefined, 'unknown'],
    ['refused, stage not known', { code: 'ESOCKET', errno: 'ECONNREFUSED', command: 'CONN' }, undefined, 'connection'],
  ];
  it.each(cases)('%s', (_name, err, stage, kind) => {
    expect(classifySmtpError(Object.assign(new Error('x'), err), stage).kind).toBe(kind);
  });
});
