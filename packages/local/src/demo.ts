/**
 * `npm run demo`: the engine doing its job in about a minute.
 *
 * Starts a local SMTP server that plays the mail provider (it keeps every
 * message and shows it), then, over HTTP like any client, creates a sending
 * domain with a postal address, a mailbox on that SMTP server, four leads and
 * a campaign with one follow-up, launches it and watches the eight emails
 * arrive. It uses an engine already running on PORT (or DEMO_URL) when there
 * is one, and otherwise starts its own in this process, in memory, with
 * TIME_SCALE=20000 so that a day of engine time passes in about 4 seconds.
 *
 *   npm run demo              run, summarize, stop
 *   npm run demo -- --keep    leave the engine running afterwards (to open the unsubscribe link)
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Fields, Sink } from '@outbound/core/log';
import type { Engine } from './engine.ts';
import { selfSignedCert } from './cert.ts';

// The SDK's notice about its future Node 22 requirement is for the README, not for a demo.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const TIME_SCALE = 20_000;
const DEADLINE_MS = 90_000;
const DAY_MS = 86_400_000;
const SENDER_NAME = 'Dana from Demo';
const MAILING_ADDRESS = 'Demo Widgets Ltd\n1 Example Street\nSpringfield, IL 62701\nUSA';
const LEADS = [
  { email: 'ada@acme.example', firstName: 'Ada', lastName: 'Lovelace', company: 'Acme' },
  { email: 'grace@globex.example', firstName: 'Grace', lastName: 'Hopper', company: 'Globex' },
  { email: 'lena@fabrik.example', firstName: 'Lena', company: 'Fabrik GmbH', customFields: { country: 'DE', city: 'Berlin' } },
  // No first name on purpose: the launch check warns, and the email says "Hi there".
  { email: 'info@initech.example', company: 'Initech' },
];
const EXPECTED = LEADS.length * 2;

const keep = process.argv.includes('--keep');
const say = (line = '') => console.log(line);
const clock = (t = Date.now()) => new Date(t).toTimeString().slice(0, 8);
const indent = (text: string, prefix = '      ') => text.split('\n').map((l) => prefix + l).join('\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A failure the demo explains in one sentence (no stack trace). */
class DemoError extends Error {}

// ---------------------------------------------------------------------------
// The SMTP server standing in for the mail provider.

interface Arrival {
  to: string;
  raw: string;
  receivedAt: number;
  subject: string;
  text: string;
  messageId: string | undefined;
  inReplyTo: string | undefined;
  references: string[];
}

interface SmtpSink {
  port: number;
  tls: boolean;
  stop(): Promise<void>;
}


/** A throwaway certificate for the sink's STARTTLS; undefined when openssl is missing. */
const sinkCert = () => selfSignedCert(1).catch(() => undefined);

async function startSmtpSink(user: string, password: string, onMessage: (m: Arrival) => void): Promise<SmtpSink> {
  const tls = await sinkCert();
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
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            const refs = parsed.references;
            onMessage({
              to: session.envelope.rcptTo[0]?.address ?? '',
              raw,
              receivedAt: Date.now(),
              subject: parsed.subject ?? '',
              text: (parsed.text ?? '').replace(/\r\n/g, '\n'),
              messageId: parsed.messageId,
              inReplyTo: parsed.inReplyTo,
              references: refs === undefined ? [] : Array.isArray(refs) ? refs : [refs],
            });
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
  return { port, tls: Boolean(tls), stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A header as it came over the wire, folded lines joined. */
function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const line = head.split(/\r?\n(?=\S)/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).replace(/\r?\n\s+/g, ' ').trim();
}

/** The body before the `--` separator and the footer after it. */
function splitFooter(text: string): { body: string; footer: string } {
  const parts = text.trimEnd().split(/\n-- ?\n/);
  if (parts.length < 2) return { body: text.trimEnd(), footer: '' };
  const footer = parts.pop()!;
  return { body: parts.join('\n--\n').trimEnd(), footer };
}

// ---------------------------------------------------------------------------
// The engine, over HTTP.

interface Answer {
  status: number;
  body: any;
}

class Client {
  token?: string;
  constructor(readonly url: string) {}

  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.url + path, {
          method,
          headers: {
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (err) {
        throw new DemoError(`The engine at ${this.url} did not answer ${method} ${path} (${(err as Error).message}).`);
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      // The engine limits requests per minute; wait out a 429 once rather than fail.
      if (res.status === 429 && attempt === 0 && path !== '/v1/auth/login') {
        const wait = Math.min(Number((parsed as { retryAfterMs?: number })?.retryAfterMs ?? 5_000), 60_000);
        say(`  (the engine's rate limit answered 429: waiting ${Math.ceil(wait / 1000)} s)`);
        await sleep(wait);
        continue;
      }
      return { status: res.status, body: parsed };
    }
  }

  /** The answer's body when the status is the expected one, else a DemoError naming the step. */
  async expect(what: string, status: number, method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.request(method, path, body);
    if (res.status !== status) {
      const error = typeof res.body === 'object' && res.body && 'error' in res.body ? res.body.error : JSON.stringify(res.body);
      throw new DemoError(`${what} failed: the engine answered ${res.status}: ${error}`);
    }
    return res.body;
  }
}

/** Whether an Outbound engine answers at `url` (its queue status wants a token: 401). */
async function probe(url: string): Promise<'engine' | 'other' | 'nothing'> {
  try {
    const res = await fetch(`${url}/v1/queue/status`, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status === 401 ? 'engine' : 'other';
  } catch {
    return 'nothing';
  }
}

/** Engine log lines worth a newcomer's attention: warnings and errors only, one line each. */
const quietSink: Sink = (line: Fields) => {
  const { time: _time, level, msg, ...rest } = line;
  if (level !== 'warn' && level !== 'error') return;
  const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
  say(`  engine ${level}: ${msg}${extra.length > 400 ? extra.slice(0, 400) + '…' : extra}`);
};

// ---------------------------------------------------------------------------

async function main(): Promise<number> {
  const cleanups: (() => Promise<void>)[] = [];
  let interrupted = false;
  let finishing: Promise<void> | undefined;
  const stopAll = () =>
    (finishing ??= (async () => {
      for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => {});
    })());
  let wake: () => void = () => {};
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    say('\nCtrl-C: stopping what the demo started…');
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    say('Outbound demo: a campaign of 4 leads, a first email and one follow-up each, sent to a local');
    say('SMTP server that stands in for your mail provider. Nothing leaves this machine.');
    say();

    // --- The SMTP server, made ready while the engine starts ----------------
    const domainName = `demo-${randomBytes(3).toString('hex')}.example.com`;
    const mailboxEmail = `dana@${domainName}`;
    const mailboxPassword = randomBytes(18).toString('base64url');
    const arrivals: Arrival[] = [];
    let onArrival: (m: Arrival) => void = () => {};
    const smtpReady = startSmtpSink(mailboxEmail, mailboxPassword, (m) => {
      arrivals.push(m);
      onArrival(m);
    }).then((smtp) => {
      cleanups.unshift(() => smtp.stop()); // stops last, after the engine is done with it
      return smtp;
    });
    smtpReady.catch(() => {}); // awaited below; a failure is reported there

    // --- Which engine -------------------------------------------------------
    const explicit = process.env.DEMO_URL?.replace(/\/+$/, '');
    const localUrl = `http://127.0.0.1:${process.env.PORT || 3000}`;
    let engineUrl: string;
    let ownEngine: Engine | undefined;
    let credentials: { email: string; password: string };

    const found = explicit ? await probe(explicit) : await probe(localUrl);
    if (explicit && found !== 'engine') {
      throw new DemoError(
        found === 'nothing'
          ? `DEMO_URL is ${explicit}, but nothing answers there. Start the engine (npm start), or unset DEMO_URL to let the demo start its own.`
          : `DEMO_URL is ${explicit}, but what answers there is not an Outbound engine (GET /v1/queue/status did not ask for a token).`,
      );
    }
    if (found === 'engine') {
      engineUrl = explicit ?? localUrl;
      const email = process.env.DEMO_EMAIL || process.env.ADMIN_EMAIL;
      const password = process.env.DEMO_EMAIL ? process.env.DEMO_PASSWORD : process.env.ADMIN_PASSWORD;
      say(`An Outbound engine is already running at ${engineUrl}: the demo uses it.`);
      if (!email || !password) {
        throw new DemoError(
          'To use it the demo must sign in: set DEMO_EMAIL and DEMO_PASSWORD (or ADMIN_EMAIL and ADMIN_PASSWORD) ' +
            `to an engine user's login and run it again, or stop that engine and the demo starts one of its own.`,
        );
      }
      credentials = { email, password };
      say('Its clock runs at whatever TIME_SCALE it was started with, which the demo cannot change. Each mailbox');
      say('waits at least 8 minutes of engine time between two sends, and the follow-up goes 1 day (waitDays) of');
      say('engine time after the first email: with TIME_SCALE=1 that is real minutes and a real day. For the');
      say('one-minute demo, start that engine with TIME_SCALE=20000 (a day then passes in about 4 seconds).');
      say(`The demo's domain and campaign stay in that engine's data; at the end the campaign is archived and its`);
      say('mailbox removed, so nothing tries the stopped SMTP server again.');
    } else {
      if (found === 'other') say(`Something that is not an Outbound engine answers at ${localUrl}; the demo starts its own on a free port.`);
      say(`Starting an engine in this process: data in memory, TIME_SCALE=${TIME_SCALE}, so one day of engine time`);
      say(`passes in ${((DAY_MS / TIME_SCALE) / 1000).toFixed(1)} seconds (starting takes 10 to 30 seconds, mostly DynamoDB Local, a Java process)…`);
      credentials = { email: 'demo@example.com', password: randomBytes(18).toString('base64url') };
      // Imported here so that using a running engine never loads DynamoDB Local or the AWS SDK.
      const { startEngine } = await import('./engine.ts');
      const started = Date.now();
      try {
        ownEngine = await startEngine({ port: 0, dataDir: 'memory', timeScale: TIME_SCALE, admin: credentials, sink: quietSink });
      } catch (err) {
        throw new DemoError(
          `The engine could not start: ${(err as Error).message} (DynamoDB Local needs a Java runtime, 17 or newer: see the README).`,
        );
      }
      const engine = ownEngine;
      cleanups.push(() => engine.stop());
      engineUrl = engine.url;
      say(`The engine listens on ${engineUrl} (started in ${((Date.now() - started) / 1000).toFixed(1)} s).`);
    }
    if (interrupted) return 130;

    const smtp = await smtpReady;
    if (interrupted) return 130;
    say(
      `A local SMTP server on 127.0.0.1:${smtp.port} plays your mail provider: it asks for a password (AUTH)` +
        (smtp.tls ? ' and offers STARTTLS with a throwaway certificate.' : ' (plain text: openssl was not found for STARTTLS).'),
    );
    say();

    // --- Setting up, as a client would --------------------------------------
    const api = new Client(engineUrl);
    const login = await api.request('POST', '/v1/auth/login', credentials);
    if (login.status !== 200) {
      throw new DemoError(
        login.status === 429
          ? `Signing in to ${engineUrl} as ${credentials.email} was refused for now (too many attempts): try again in a few minutes.`
          : `Signing in to ${engineUrl} as ${credentials.email} failed (${login.status}): check DEMO_EMAIL and DEMO_PASSWORD.`,
      );
    }
    api.token = login.body.token;
    say(`1. Signed in as ${credentials.email}${ownEngine ? ' (a user made for this run)' : ''}: POST /v1/auth/login gave a bearer token.`);

    const domain = await api.expect('Creating the domain', 201, 'POST', '/v1/domains', { domainName, mailingAddress: MAILING_ADDRESS });
    say(`2. Added the sending domain ${domainName}, with the postal address every email from it must carry:`);
    say(indent(MAILING_ADDRESS));

    const mailbox = await api.expect('Creating the mailbox', 201, 'POST', '/v1/mailboxes', {
      email: mailboxEmail,
      domainId: domain.id,
      smtpHost: '127.0.0.1',
      smtpPort: smtp.port,
      authPassword: mailboxPassword,
      senderName: SENDER_NAME,
      dailyCap: 100,
    });
    if (!ownEngine) {
      const id = mailbox.id as string;
      cleanups.push(async () => void (await api.request('DELETE', `/v1/mailboxes/${id}`)));
    }
    say(`3. Connected the mailbox ${mailboxEmail} ("${SENDER_NAME}") on that SMTP server; the engine signed in`);
    say('   to check the password, then stored it encrypted (it is never returned).');

    const campaign = await api.expect('Creating the campaign', 201, 'POST', '/v1/campaigns', {
      name: 'Demo outreach',
      aiPromptTemplate: 'Write to {{firstName}} at {{company}} about saving time on outbound email.',
      subject: '{Quick|Short} question for {{company}}',
      template:
        'Hi {{firstName}},\n\n{I noticed|I saw} that {{company}} is growing its sales team. Would a short call next week\n' +
        'about sending cold email without losing your domain reputation make sense?\n\n{{senderName}}',
      mailboxIds: [mailbox.id],
      steps: [{ waitDays: 1, body: 'Hi {{firstName}}, bringing this back to the top of your inbox: worth a chat?\n\n{{senderName}}' }],
    });
    if (!ownEngine) {
      const id = campaign.id as string;
      // Archived before the mailbox is removed (cleanups run in reverse).
      cleanups.push(async () => void (await api.request('DELETE', `/v1/campaigns/${id}`)));
    }
    say(`4. Created the campaign "${campaign.name}" (content quality ${campaign.contentQuality}/100):`);
    say('      subject    {Quick|Short} question for {{company}}        (spintax picks one of the two)');
    say('      first      "Hi {{firstName}}, …" signed {{senderName}}');
    say('      follow-up  1 day later, in the same thread');

    for (const lead of LEADS) await api.expect(`Adding the lead ${lead.email}`, 201, 'POST', '/v1/leads', { campaignId: campaign.id, ...lead });
    say(`5. Added ${LEADS.length} leads: ${LEADS.map((l) => l.email).join(', ')}`);
    say('   lena@ is in Germany (customFields.country DE), an EU recipient: an email written by AI would end with a');
    say('   disclosure line for her; this campaign sends its plain template, so hers has none. info@ has no first');
    say('   name: the launch check warns about it, and the email says "Hi there".');

    const check = await api.expect('The launch check', 200, 'GET', `/v1/campaigns/${campaign.id}/launch-check`);
    say(`6. Launch check: ${check.canLaunch ? 'ready' : 'NOT ready'}; passed ${(check.passed as string[]).join(', ')}.`);
    for (const p of check.problems as { code: string; message: string }[]) say(`      problem ${p.code}: ${p.message}`);
    for (const w of check.warnings as { code: string; message: string }[]) say(`      warning ${w.code}: ${w.message}`);
    if (!(check.warnings as unknown[]).length) say('      no warnings.');
    if (!check.canLaunch) throw new DemoError('The launch check found problems (above), so the campaign cannot launch.');

    const launchedAt = Date.now();
    await api.expect('Launching', 200, 'POST', `/v1/campaigns/${campaign.id}/launch`);
    say(`7. Launched at ${clock(launchedAt)}. Now the queue works: every send waits its turn (8 to 10 minutes of engine`);
    say('   time between two sends from one mailbox), and each follow-up waits its day.');
    say();
    say(`Waiting for ${EXPECTED} emails (${LEADS.length} first emails, ${LEADS.length} follow-ups); queue counts are printed when they change`);
    say(`(delayed = planned for later, waiting = due now, active = being sent, completed = sent${ownEngine ? '' : ', for the whole engine'}):`);

    // --- Watching -----------------------------------------------------------
    const seenKinds = new Set<'first' | 'follow-up'>();
    const byLead = new Map<string, Arrival[]>();
    const show = (m: Arrival) => {
      const n = arrivals.indexOf(m) + 1;
      const earlier = byLead.get(m.to) ?? [];
      byLead.set(m.to, [...earlier, m]);
      const kind = m.inReplyTo || earlier.length ? 'follow-up' : 'first';
      let what = '(first email)';
      if (kind === 'follow-up') {
        const prev = earlier[earlier.length - 1];
        const re = m.subject.startsWith('Re: ');
        const threaded = Boolean(prev?.messageId) && m.inReplyTo === prev!.messageId && m.references.includes(prev!.messageId!);
        const days = ownEngine && prev ? `; ${(((m.receivedAt - prev.receivedAt) * TIME_SCALE) / DAY_MS).toFixed(1)} engine days after the first` : '';
        what = `(follow-up, ${re ? 'Re:' : 'no Re:'}, ${threaded ? 'threaded' : 'NOT threaded'}${days})`;
      }
      say(`[${n}/${EXPECTED}] ${clock(m.receivedAt)}  to ${m.to.padEnd(22)} "${m.subject}"  ${what}`);
      if (seenKinds.has(kind)) return;
      seenKinds.add(kind);
      say(kind === 'first' ? '    The first email as the provider received it:' : '    The first follow-up as the provider received it:');
      for (const name of ['From', 'To', 'Subject', 'Message-ID', 'In-Reply-To', 'References', 'List-Unsubscribe', 'List-Unsubscribe-Post']) {
        const value = header(m.raw, name) ?? (kind === 'first' && name === 'In-Reply-To' ? '(none: this email starts the thread)' : '(none)');
        say(`      ${(name + ':').padEnd(23)}${value}`);
      }
      const { body, footer } = splitFooter(m.text);
      say('    Body:');
      say(indent(body, '      | '));
      say('    Footer (added by the engine: the domain\'s postal address, then the unsubscribe link):');
      say(footer ? indent(footer, '      | ') : '      (no footer found)');
    };
    for (const m of arrivals) show(m); // none yet, unless the engine was very quick
    onArrival = show;

    let lastCounts = '';
    const notes = new Set<string>();
    let pausedNoted = false;
    const pollQueue = async () => {
      const res = await api.request('GET', '/v1/queue/status').catch(() => undefined);
      if (!res || res.status !== 200) return;
      const c = res.body.counts as Record<string, number>;
      const line = `waiting ${c.waiting}, active ${c.active}, delayed ${c.delayed}, completed ${c.completed}, failed ${c.failed}`;
      if (line !== lastCounts) {
        lastCounts = line;
        say(`        ${clock()}  queue: ${line}`);
      }
      if (res.body.isPaused && !pausedNoted) {
        pausedNoted = true;
        say('        The engine\'s queue is paused, so nothing is sent: POST /v1/queue/pause {"paused":false} resumes it.');
      }
      for (const job of res.body.jobs as { campaignId: string; lastError: string | null }[]) {
        if (job.campaignId !== campaign.id || !job.lastError || notes.has(job.lastError)) continue;
        notes.add(job.lastError);
        say(`        The engine notes on a job: ${job.lastError}`);
      }
    };

    const deadline = launchedAt + DEADLINE_MS;
    while (arrivals.length < EXPECTED && Date.now() < deadline && !interrupted) {
      await pollQueue();
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 1_000);
      });
    }
    onArrival = () => {};
    if (interrupted) return 130;

    if (arrivals.length < EXPECTED) {
      say();
      say(`Only ${arrivals.length} of ${EXPECTED} emails arrived within ${DEADLINE_MS / 1000} seconds. Missing:`);
      for (const lead of LEADS) {
        const got = byLead.get(lead.email)?.length ?? 0;
        if (got === 0) say(`  - the first email and the follow-up to ${lead.email}`);
        else if (got === 1) say(`  - the follow-up to ${lead.email}`);
      }
      if (!ownEngine) say('The engine runs at its own TIME_SCALE: start it with TIME_SCALE=20000 to see the whole sequence in the demo\'s time.');
      else say('The queue counts and any engine notes above say where the rest is.');
      return 1;
    }
    const lastAt = Math.max(...arrivals.map((m) => m.receivedAt));
    await pollQueue();

    // --- Summary -------------------------------------------------------------
    // A lead's status moves once the engine records its last send: give it a moment.
    let leads: { email: string; status: string }[] = [];
    for (let i = 0; i < 50; i++) {
      leads = (await api.expect('Listing the leads', 200, 'GET', `/v1/leads?campaignId=${campaign.id}`)).leads;
      if (leads.every((l) => l.status === 'COMPLETED')) break;
      await sleep(200);
    }
    const row = await api.expect('Reading the campaign', 200, 'GET', `/v1/campaigns/${campaign.id}`);
    const ada = byLead.get(LEADS[0]!.email)?.[0] ?? arrivals[0]!;
    const unsubscribe = (header(ada.raw, 'List-Unsubscribe') ?? '').replace(/^<|>$/g, '');

    say();
    say(`Done: all ${EXPECTED} emails arrived, ${((lastAt - launchedAt) / 1000).toFixed(1)} seconds after the launch. The engine counts ${row.sentCount ?? '?'} sent for this campaign.`);
    say('Lead statuses (GET /v1/leads):');
    for (const l of leads) say(`  ${l.email.padEnd(24)}${l.status}`);
    say('COMPLETED: the lead got the whole sequence. A reply, a bounce or an unsubscribe would have stopped it early.');
    say();
    say(`Unsubscribe link of the email to ${ada.to}:`);
    say(`  ${unsubscribe}`);
    say('Open it in a browser: the page changes nothing until you press the button (mail scanners follow links).');
    if (ownEngine && !keep) {
      say('This engine stops with the demo, so the link works only while it runs: `npm run demo -- --keep` leaves it running.');
    }

    if (ownEngine && keep) {
      say();
      say(`The engine keeps running on ${engineUrl} for that link. Ctrl-C stops it.`);
      await new Promise<void>((r) => (wake = r));
    }
    return 0;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.once('SIGINT', () => process.exit(130)); // a second Ctrl-C does not wait for the clean stop
    await stopAll();
  }
}

main()
  .then((code) => {
    say('Stopped everything the demo started.');
    process.exit(code);
  })
  .catch((err) => {
    console.error(err instanceof DemoError ? err.message : `The demo failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  });
