/**
 * A real SMTP server (smtp-server on 127.0.0.1) that misbehaves on purpose, for the mailer's
 * failure tests: it refuses chosen recipients with a chosen reply code, can drop the
 * connection after reading a message without answering the final dot, and records what a
 * plain test server does not (connections opened, whether each transaction ran over TLS).
 */
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { selfSignedCert } from './smtp.ts';

export interface FaultySmtpServerOptions {
  /** Accepted logins; a wrong password is answered 535. */
  users?: Record<string, string>;
  /** Accepted XOAUTH2 access tokens by user. */
  accessTokens?: Record<string, string>;
  /** RCPT TO replies by address (lower case): e.g. `{ 'gone@x.test': 550, 'busy@x.test': 451 }`. */
  rejectRecipients?: Record<string, number>;
  /** Read the whole message, then destroy the socket instead of answering the final dot. */
  dropAfterData?: boolean;
  /** Do not advertise STARTTLS. */
  hideStartTls?: boolean;
}

export interface Transaction {
  /** smtp-server's `session.secure`: true once STARTTLS (or implicit TLS) is in place. */
  secure: boolean;
  user: string | undefined;
  mailFrom: string;
}

export interface FaultySmtpServer {
  port: number;
  host: '127.0.0.1';
  /** Connections accepted so far. */
  connections(): number;
  /** One entry per MAIL FROM accepted. */
  transactions: Transaction[];
  /** Raw messages read over DATA (also those the server then dropped). */
  messages: string[];
  stop(): Promise<void>;
}

export async function startFaultySmtpServer(opts: FaultySmtpServerOptions = {}): Promise<FaultySmtpServer> {
  const { key, cert } = await selfSignedCert();
  const users = opts.users ?? {};
  const rejects = new Map(Object.entries(opts.rejectRecipients ?? {}).map(([a, c]) => [a.toLowerCase(), c]));
  const transactions: Transaction[] = [];
  const messages: string[] = [];
  // The raw TCP sockets by client port, so that a handler can cut one off mid-session.
  const sockets = new Map<number, Socket>();
  let connections = 0;

  const server = new SMTPServer({
    key,
    cert,
    hideSTARTTLS: opts.hideStartTls ?? false,
    authMethods: ['PLAIN', 'LOGIN', 'XOAUTH2'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 200,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.method === 'XOAUTH2') {
        const token = auth.username === undefined ? undefined : opts.accessTokens?.[auth.username];
        if (token !== undefined && token === auth.accessToken) return callback(null, { user: auth.username });
        // RFC 7628 section 3.2.2: the failure is a JSON challenge, then 535.
        return callback(null, { data: { status: '401', schemes: 'bearer', scope: 'https://mail.google.com/' } });
      }
      const expected = auth.username === undefined ? undefined : users[auth.username];
      if (expected !== undefined && expected === auth.password) return callback(null, { user: auth.username });
      callback(new Error('Authentication credentials invalid'));
    },
    onMailFrom(address, session, callback) {
      transactions.push({ secure: session.secure, user: session.user as string | undefined, mailFrom: address.address });
      callback();
    },
    onRcptTo(address, _session, callback) {
      const code = rejects.get(address.address.toLowerCase());
      if (code === undefined) return callback();
      const err = Object.assign(new Error(code >= 500 ? 'No such user here' : 'Try again later'), { responseCode: code });
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks).toString('utf8'));
        if (!opts.dropAfterData) return callback();
        // The whole message has arrived; the client never learns whether it was taken.
        sockets.get(session.remotePort)?.destroy();
      });
    },
  });
  server.on('error', () => {}); // dropped sessions are the point here
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort;
    if (port === undefined) return;
    sockets.set(port, socket);
    socket.on('close', () => sockets.delete(port));
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
  });

  return {
    port,
    host: '127.0.0.1',
    connections: () => connections,
    transactions,
    messages,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets.values()) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
