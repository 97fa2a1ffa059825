/**
 * The SMTP server that plays the mail provider: it asks the engine for a
 * password, keeps every message it accepts, and reads each one into what the
 * demo shows (headers as written, body, footer).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseInbound } from '@outbound/mail/inbound-parse';
import { selfSignedCert } from '../cert.ts';

export interface Arrival {
  /** The envelope recipient, which is the lead (the To header could say anything). */
  to: string;
  receivedAt: number;
  subject: string;
  text: string;
  /** Message-IDs without angle brackets. */
  messageId: string | undefined;
  inReplyTo: string[];
  references: string[];
  /** Header values by lower-case name, as written over the wire, folded lines joined. */
  headers: Record<string, string>;
}

export interface SmtpSink {
  port: number;
  tls: boolean;
  /** Every message accepted so far, in order of arrival. */
  arrivals: Arrival[];
  /** Called with each new arrival before the server answers 250; undefined to stop listening. */
  listen(onArrival: ((m: Arrival) => void) | undefined): void;
  stop(): Promise<void>;
}

/** A throwaway certificate for the sink's STARTTLS; undefined when openssl is missing. */
const sinkCert = () => selfSignedCert(1).catch(() => undefined);

export async function startSmtpSink(user: string, password: string): Promise<SmtpSink> {
  const tls = await sinkCert();
  const arrivals: Arrival[] = [];
  let onArrival: ((m: Arrival) => void) | undefined;
  const server = new SMTPServer({
    ...(tls ? { key: tls.key, cert: tls.cert } : { hideSTARTTLS: true, disabledCommands: ['STARTTLS'] }),
    authMethods: ['PLAIN', 'LOGIN'],
    // Without openssl the sink speaks plain text; the engine sends credentials in clear only to loopback.
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      callback(new Error('Authentication credentials invalid'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        // The engine's own reader of incoming mail; the uid and arrival time it asks for are IMAP's and unused here.
        parseInbound(0, Date.now(), Buffer.concat(chunks).toString('utf8'))
          .then((parsed) => {
            const arrival: Arrival = {
              to: session.envelope.rcptTo[0]?.address ?? '',
              receivedAt: Date.now(),
              subject: parsed.subject,
              text: parsed.text.replace(/\r\n/g, '\n'),
              messageId: parsed.messageId,
              inReplyTo: parsed.inReplyTo,
              references: parsed.references,
              headers: parsed.headers,
            };
            arrivals.push(arrival);
            onArrival?.(arrival);
            callback();
          })
          .catch(callback);
      });
    },
  });
  server.on('error', () => {}); // a client dropping its connection is not the demo's failure
  const port = await new Promise<number>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
  });
  return {
    port,
    tls: Boolean(tls),
    arrivals,
    listen: (fn) => void (onArrival = fn),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header of an arrival by its usual spelling. */
export const header = (m: Arrival, name: string): string | undefined => m.headers[name.toLowerCase()];

/** The body before the `--` separator and the footer after it. */
export function splitFooter(text: string): { body: string; footer: string } {
  const parts = text.trimEnd().split(/\n-- ?\n/);
  if (parts.length < 2) return { body: text.trimEnd(), footer: '' };
  const footer = parts.pop()!;
  return { body: parts.join('\n--\n').trimEnd(), footer };
}
