/**
 * A real SMTP server for tests (smtp-server on 127.0.0.1), plus the two misbehaving
 * endpoints the sign-in tests need: a server that never speaks and a port nobody answers.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { simpleParser, type HeaderValue } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMessage {
  envelope: { from: string; to: string[] };
  /** The message exactly as it came over DATA. */
  raw: string;
  receivedAt: number;
  /** Parsed by mailparser: keys are lower-case header names. */
  headers: Map<string, HeaderValue>;
  subject: string | undefined;
  text: string | undefined;
  messageId: string | undefined;
  inReplyTo: string | undefined;
  references: string[];
}

export interface SmtpServerOptions {
  /** Accepted logins; a wrong password is answered 535. */
  users?: Record<string, string>;
  /** Implicit TLS from the first byte (as on port 465) instead of STARTTLS. */
  secure?: boolean;
  /** Accept mail without AUTH. Defaults to true when no users are given. */
  authOptional?: boolean;
  /** A plaintext-only server: STARTTLS is neither advertised nor accepted. */
  noStartTls?: boolean;
  /** Offer XOAUTH2 too: a login is accepted when `verify` says its access token is the user's (the OAuth server's word). */
  oauth?: { verify(user: string, accessToken: string): boolean };
  /** Runs on each message before the server answers 250: a test can file it somewhere first (a seed's INBOX or Junk). */
  onMessage?: (message: ReceivedMessage) => Promise<void>;
}

export interface SmtpLogin {
  user: string;
  ok: boolean;
  secure: boolean;
  method: 'PLAIN' | 'LOGIN' | 'XOAUTH2';
}

export interface TestSmtpServer {
  port: number;
  host: '127.0.0.1';
  messages: ReceivedMessage[];
  /**
   * Every AUTH attempt, right or wrong, whether the session was encrypted by then, and the SASL mechanism.
   * `method` is an ordinary property on XOAUTH2 logins but a non-enumerable one on PLAIN and LOGIN logins:
   * `login.method` and `toMatchObject({ method: 'PLAIN' })` see it, while `toEqual({ user, ok, secure })`
   * (the shape the password sign-in tests compare) still holds.
   */
  logins: SmtpLogin[];
  stop(): Promise<void>;
  /** Resolves with the messages once at least `count` have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
}

import { selfSignedCert as makeCert } from '@outbound/local/cert';

let certificate: Promise<{ key: string; cert: string }> | undefined;

/** A self-signed certificate for localhost and 127.0.0.1, made once per process. */
export function selfSignedCert(): Promise<{ key: string; cert: string }> {
  certificate ??= makeCert();
  return certificate;
}

export async function startSmtpServer(opts: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const { key, cert } = await selfSignedCert();
  const users = opts.users ?? {};
  const messages: ReceivedMessage[] = [];
  const logins: TestSmtpServer['logins'] = [];
  const waiters = new Set<() => void>();

  const server = new SMTPServer({
    secure: opts.secure ?? false,
    key,
    cert,
    hideSTARTTLS: opts.noStartTls ?? false,
    disabledCommands: opts.noStartTls ? ['STARTTLS'] : [],
    authMethods: opts.oauth ? ['PLAIN', 'LOGIN', 'XOAUTH2'] : ['PLAIN', 'LOGIN'],
    authOptional: opts.authOptional ?? opts.users === undefined,
    // Tests may also talk plaintext to 127.0.0.1, as the engine allows for loopback.
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 200,
    onAuth(auth, session, callback) {
      const user = auth.username ?? '';
      if (auth.method === 'XOAUTH2') {
        const ok = Boolean(opts.oauth?.verify(user, auth.accessToken ?? ''));
        logins.push({ user, ok, secure: session.secure, method: 'XOAUTH2' });
        if (ok) return callback(null, { user });
        // The XOAUTH2 failure challenge (RFC 7628 §3.2.2 style), which smtp-server answers with 334 then 535.
        return callback(null, { data: { status: '401', schemes: 'bearer', scope: 'https://mail.google.com/' } });
      }
      const ok = Object.hasOwn(users, user) && users[user] === auth.password;
      const login = { user, ok, secure: session.secure } as SmtpLogin;
      Object.defineProperty(login, 'method', { value: auth.method === 'LOGIN' ? 'LOGIN' : 'PLAIN', enumerable: false });
      logins.push(login);
      if (ok) return callback(null, { user });
      // smtp-server answers an onAuth error with 535 5.7.8.
      callback(new Error('Authentication credentials invalid'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            const message: ReceivedMessage = {
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              raw,
              receivedAt: Date.now(),
              headers: parsed.headers,
              subject: parsed.subject,
              text: parsed.text,
              messageId: parsed.messageId,
              inReplyTo: parsed.inReplyTo,
              references: parsed.references === undefined ? [] : Array.isArray(parsed.references) ? parsed.references : [parsed.references],
            };
            return Promise.resolve(opts.onMessage?.(message)).then(() => {
              messages.push(message);
              for (const wake of waiters) wake();
              callback();
            });
          })
          .catch(callback);
      });
    },
  });
  server.on('error', () => {}); // a client dropping mid-session is not the test's failure

  const port = await new Promise<number>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
  });

  return {
    port,
    host: '127.0.0.1',
    messages,
    logins,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    waitFor(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(messages.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} message(s) within ${timeoutMs} ms, got ${messages.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** A TCP server that accepts connections and never says a word (for timeout tests). */
export async function startSilentServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 with nothing listening (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}
