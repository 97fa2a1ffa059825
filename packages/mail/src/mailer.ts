/**
 * The Mailer port over SMTP: nodemailer, one pooled connection per mailbox.
 * The adapter only sends and classifies the outcome; what a failure means for the lead,
 * the mailbox and the breaker is core's business (packages/core/src/ports/mailer.ts).
 */
import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import { createTransport, type SendMailOptions, type Transporter } from 'nodemailer';
import type { MailboxTransport, Mailer, OutgoingEmail, SendFailure, SendHooks, SendResult } from '@outbound/core/ports/mailer';
import { isLoopback, isPrivateOrLoopback, type Target } from './transport.ts';
import { withoutAddresses } from '@outbound/core/log';

export interface SmtpMailerOptions {
  /**
   * Resolves a host name to an IP address (for DNS_SERVERS). The connection goes to that
   * address and the host name stays the TLS server name. Default: the system resolver.
   */
  resolver?: (host: string) => Promise<string>;
  /** Connection, greeting, inactivity and DNS timeout. Default 30 000 ms. */
  timeoutMs?: number;
  log?: { warn(msg: string, f?: object): void };
}

/**
 * Where an SMTP transaction was when it failed. `message`: the server accepted DATA, so the
 * message may have been streamed and taken even though no final reply was read.
 */
export type SmtpStage = 'before-message' | 'message';

export interface SmtpFailure {
  kind: SendFailure;
  code?: number;
  detail: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export function smtpMailer(opts: SmtpMailerOptions = {}): Mailer {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pools = new Map<string, Pool>();
  // Sends to one mailbox run one after another, so the transaction watch of its pool
  // always describes the send being made.
  const queues = new Map<string, Promise<unknown>>();

  async function poolFor(transport: MailboxTransport): Promise<Pool | SmtpFailure> {
    const target = await locate(transport.host, opts.resolver, timeoutMs);
    if ('kind' in target) return target;
    const key = poolKey(transport, target.ip);
    const existing = pools.get(transport.mailboxId);
    if (existing?.key === key) return existing;
    existing?.transporter.close();
    const pool = createPool(transport, target, key, timeoutMs);
    pools.set(transport.mailboxId, pool);
    return pool;
  }

  async function sendNow(transport: MailboxTransport, email: OutgoingEmail, hooks: SendHooks): Promise<SendResult> {
    const pool = await poolFor(transport);
    if ('kind' in pool) return { ok: false, ...pool };
    pool.watch.reset();
    const gate = hooks.beforeMessage ? new MessageGate(hooks.beforeMessage) : undefined;
    pool.gate = gate;
    pool.watch.onDataAccepted = gate ? () => gate.accept() : undefined;
    try {
      const info = await pool.transporter.sendMail(composeMessage(email));
      return { ok: true, response: String(info.response ?? '') };
    } catch (err) {
      // DATA was accepted but the message never left the gate: the server cannot have it (nodemailer drops the
      // connection on any failure). A failure before DATA is classified as usual.
      if (gate?.heldBack) return { ok: false, kind: 'connection', detail: gate.refusal ?? messageOf(err) };
      const failure = classifySmtpError(err, pool.watch.stage());
      if (failure.kind === 'unknown') {
        opts.log?.warn('smtp outcome unknown: the connection broke after the message was handed over', {
          mailboxId: transport.mailboxId,
          messageId: email.messageId,
          detail: withoutAddresses(failure.detail),
        });
      }
      return { ok: false, ...failure };
    } finally {
      // A send that ended before DATA was accepted: whatever nodemailer still reads of the message is dropped.
      gate?.drop();
      await gate?.settled();
      pool.gate = undefined;
      pool.watch.onDataAccepted = undefined;
    }
  }

  return {
    send(transport, email, hooks = {}) {
      const previous = queues.get(transport.mailboxId) ?? Promise.resolve();
      const result = previous.then(() => sendNow(transport, email, hooks));
      const settled = result.catch(() => undefined);
      queues.set(transport.mailboxId, settled);
      // Not awaited: settled never rejects, and this only forgets the mailbox's queue once nothing follows it.
      void settled.then(() => {
        if (queues.get(transport.mailboxId) === settled) queues.delete(transport.mailboxId);
      });
      return result.catch((err: unknown): SendResult => ({ ok: false, kind: 'connection', detail: messageOf(err) }));
    },

    async close() {
      // Sends already under way finish first (each is bounded by the timeouts).
      await Promise.all([...queues.values()]);
      for (const pool of pools.values()) pool.transporter.close();
      pools.clear();
    },
  };
}

interface Pool {
  key: string;
  transporter: Transporter;
  watch: TransactionWatch;
  /** The gate of the send under way (sends to one mailbox run one after another). */
  gate?: MessageGate;
}

/**
 * Holds the message's bytes back until the server has accepted DATA (354)
 * and the caller's beforeMessage hook has resolved. The server takes a
 * message only at its final dot, so until the gate opens a crash or a
 * refusal leaves nothing delivered; once it opens, only the transfer of the
 * message and the server's answer remain (docs/sending.md, Exactly once).
 */
class MessageGate {
  opened = false;
  /** Why the hook refused, when it did. */
  refusal: string | undefined;
  private state: 'waiting' | 'accepted' | 'dropped' = 'waiting';
  private wake: () => void = noop;
  private opening: Promise<boolean> | undefined;

  constructor(private readonly hook: () => Promise<void>) {}

  /** DATA was accepted but nothing of the message went. */
  get heldBack(): boolean {
    return this.state === 'accepted' && !this.opened;
  }

  /** The server answered DATA with 354: the message may go once the hook agrees. */
  accept(): void {
    if (this.state === 'waiting') this.state = 'accepted';
    this.wake();
  }

  /** The send is over: a gate whose hook has not started will never open (nodemailer may still drain the message). */
  drop(): void {
    if (this.state === 'waiting' || !this.opening) this.state = 'dropped';
    this.wake();
  }

  /** Resolves once the hook (if it ran) has finished, so the caller sees what it wrote. */
  async settled(): Promise<void> {
    await this.opening?.catch(() => undefined);
  }

  /** A pass-through stream for nodemailer's message pipeline that waits at the first chunk. */
  transform(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _enc, done: TransformCallback) => {
        if (this.opened) return done(null, chunk);
        this.opening ??= this.open();
        this.opening.then(
          (open) => (open ? done(null, chunk) : done()),
          (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
        );
      },
    });
  }

  private async open(): Promise<boolean> {
    while (this.state === 'waiting') await new Promise<void>((r) => (this.wake = r));
    if (this.state === 'dropped') return false;
    try {
      await this.hook();
    } catch (err) {
      this.refusal = `the message was held back: ${messageOf(err)}`;
      throw err;
    }
    this.opened = true;
    return true;
  }
}

function createPool(transport: MailboxTransport, target: Target, key: string, timeoutMs: number): Pool {
  const watch = new TransactionWatch();
  const secure = transport.port === 465;
  const transporter = createTransport({
    pool: true,
    maxConnections: 1,
    // A message whose connection closed mid-send may already have been taken: never let the
    // pool send it again by itself (docs/sending.md, Exactly once).
    maxRequeues: 0,
    host: target.ip,
    port: transport.port,
    secure,
    servername: target.servername,
    // STARTTLS whenever offered (nodemailer's default); mandatory where credentials must not
    // travel in clear, i.e. anywhere but loopback and private networks.
    requireTLS: !secure && !target.trusted,
    tls: { rejectUnauthorized: target.verifyCert, servername: target.servername },
    auth:
      transport.auth.type === 'password'
        ? { user: transport.user, pass: transport.auth.pass }
        : { type: 'OAuth2', user: transport.user, accessToken: transport.auth.accessToken },
    // A server that does not advertise AUTH would otherwise get the message unauthenticated,
    // and its relay refusal would look like a bounce.
    forceAuth: true,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    logger: watch.logger,
    transactionLog: true,
  });
  const pool: Pool = { key, transporter, watch };
  // Every message passes its send's gate (when the send has one) on its way to the DATA stream.
  transporter.use('stream', (mail, done) => {
    const gate = pool.gate;
    if (gate) mail.message.transform(() => gate.transform());
    done();
  });
  return pool;
}

/**
 * Follows the SMTP dialogue through nodemailer's transaction log (commands written, replies
 * read). nodemailer reports a connection that breaks mid-message as a plain connection error
 * (command 'CONN'), so this is the only way to tell "nothing was sent" from "the server may
 * have the message".
 */
class TransactionWatch {
  private phase: 'idle' | 'envelope' | 'data-command' | 'message' | 'done' = 'idle';

  readonly logger = {
    trace: noop,
    debug: (entry: unknown, line: unknown) => this.observe(entry, line),
    info: noop,
    warn: noop,
    error: noop,
    fatal: noop,
  };

  /** Called when the server accepts DATA (the message is about to be streamed). */
  onDataAccepted: (() => void) | undefined;

  reset(): void {
    this.phase = 'idle';
  }

  stage(): SmtpStage {
    return this.phase === 'message' || this.phase === 'done' ? 'message' : 'before-message';
  }

  private observe(entry: unknown, line: unknown): void {
    const tnx = typeof entry === 'object' && entry !== null ? (entry as { tnx?: unknown }).tnx : undefined;
    const text = typeof line === 'string' ? line : '';
    if (tnx === 'client') {
      if (/^MAIL FROM:/i.test(text)) this.phase = 'envelope';
      else if (/^DATA$/i.test(text.trim())) this.phase = 'data-command';
    } else if (tnx === 'server') {
      // 354 (or a 2xx from a lax server) opens the message; anything else refused DATA.
      if (this.phase === 'data-command') {
        this.phase = /^[23]/.test(text) ? 'message' : 'envelope';
        if (this.phase === 'message') this.onDataAccepted?.();
      } else if (this.phase === 'message') this.phase = 'done';
    }
  }
}

function noop(): void {}

/**
 * Resolves the host once, here, so that the address judged private is the address connected
 * to. Re-resolved on every send: a changed address makes a new pool.
 */
async function locate(
  host: string,
  resolver: ((host: string) => Promise<string>) | undefined,
  timeoutMs: number,
): Promise<Target | SmtpFailure> {
  if (isIP(host)) return { ip: host, servername: undefined, trusted: isPrivateOrLoopback(host), verifyCert: !isPrivateOrLoopback(host) };
  let timer: NodeJS.Timeout | undefined;
  try {
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no DNS answer for ${host} within ${timeoutMs} ms`)), timeoutMs);
    });
    const resolving = resolver ? resolver(host) : lookup(host).then((a) => a.address);
    const ip = await Promise.race([resolving, expired]);
    if (!isIP(ip)) return { kind: 'connection', detail: `resolver returned ${JSON.stringify(ip)} for ${host}, not an IP address` };
    // Reached by name: never in clear, whatever it resolves to (someone on the LAN could strip STARTTLS); see transport.ts.
    return { ip, servername: host, trusted: false, verifyCert: !isLoopback(ip) };
  } catch (err) {
    return { kind: 'connection', detail: `cannot resolve ${host}: ${messageOf(err)}` };
  } finally {
    clearTimeout(timer);
  }
}

/** What makes a pool reusable: the secret enters only as a digest. */
function poolKey(transport: MailboxTransport, ip: string): string {
  const secret = transport.auth.type === 'password' ? transport.auth.pass : transport.auth.accessToken;
  const digest = createHash('sha256').update(secret).digest('base64url');
  return JSON.stringify([transport.host, ip, transport.port, transport.user, transport.auth.type, digest]);
}

function composeMessage(email: OutgoingEmail): SendMailOptions {
  return {
    envelope: { from: email.from.address, to: [email.to] },
    from: email.from.name ? { name: email.from.name, address: email.from.address } : email.from.address,
    to: email.to,
    subject: email.subject,
    text: email.text,
    messageId: `<${email.messageId}>`,
    ...(email.date !== undefined ? { date: new Date(email.date) } : {}),
    ...(email.inReplyTo ? { inReplyTo: `<${email.inReplyTo}>` } : {}),
    ...(email.references?.length ? { references: email.references.map((id) => `<${id}>`) } : {}),
    headers: Object.fromEntries(Object.entries(email.headers).map(([name, value]) => [name, asWritten(name, value)])),
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/**
 * Plain printable ASCII goes out byte for byte (nodemailer would otherwise treat
 * `List-Unsubscribe: <url>` as text to encode and fold); anything else is left to
 * nodemailer's encoding, which also strips line breaks (no header injection).
 */
function asWritten(name: string, value: string): string | { prepared: true; value: string } {
  const fitsOneLine = name.length + 2 + value.length <= 998; // RFC 5322 section 2.1.1
  return /^[\x20-\x7e]*$/.test(value) && fitsOneLine ? { prepared: true, value } : value;
}

interface NodemailerError {
  message?: string;
  code?: string;
  errno?: number | string;
  responseCode?: number;
  response?: unknown;
  command?: string;
}

/**
 * Sorts a nodemailer failure into the port's SendFailure:
 * - `auth`: the sign-in was refused (EAUTH), or the server refused this mailbox as sender
 *   (a 5xx to MAIL FROM is about the mailbox, never about the lead);
 * - `permanent` / `temporary`: the server's 5xx / 4xx to RCPT TO, DATA or the message itself;
 * - `unknown`: no reply was read after the server accepted DATA (`stage` 'message'); without a
 *   stage, a reply-less failure on the DATA command is taken as unknown too;
 * - `connection`: everything else, where nothing can have been sent (DNS, refused, TLS,
 *   timeouts and resets before the message).
 * `detail` is the server's reply when there was one, else the error message (for logs).
 */
export function classifySmtpError(err: unknown, stage?: SmtpStage): SmtpFailure {
  const e: NodemailerError = typeof err === 'object' && err !== null ? (err as NodemailerError) : {};
  const code = typeof e.responseCode === 'number' && e.responseCode > 0 ? e.responseCode : undefined;
  const detail = (typeof e.response === 'string' && e.response.trim()) || messageOf(err);
  const result = (kind: SendFailure): SmtpFailure => (code === undefined ? { kind, detail } : { kind, code, detail });

  if (e.code === 'EAUTH' || /^AUTH\b/i.test(e.command ?? '')) return result('auth');

  if (code !== undefined && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE')) {
    if (e.command === 'MAIL FROM') return result(code >= 500 ? 'auth' : 'temporary');
    if (code >= 500) return result('permanent');
    if (code >= 400) return result('temporary');
  }
  // nodemailer's own refusal of a recipient address it cannot write (nothing was sent).
  if (e.code === 'EENVELOPE' && code === undefined && /recipient/i.test(e.message ?? '')) return result('permanent');

  // No usable reply: what matters is whether the message may have reached the server.
  if (stage === 'message') return result('unknown');
  if (stage === undefined && e.command === 'DATA') return result('unknown');
  return result('connection');
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
