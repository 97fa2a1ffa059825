/**
 * The demo's steps up to the launch: find or start an engine, then set up a
 * domain, a mailbox, a campaign and its leads over HTTP, check and launch.
 * Each step says what it did, numbered as the reader follows along.
 */
import { randomBytes } from 'node:crypto';
import type { Fields, Sink } from '@outbound/core/log';
import { Client, probe } from './client.ts';
import { clock, DemoError, indent, say } from './output.ts';
import type { DemoRun } from './run.ts';
import { CAMPAIGN, DAY_MS, EXPECTED, LEADS, MAILING_ADDRESS, SENDER_NAME, TIME_SCALE } from './scenario.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

/** The engine the demo talks to, and whether the demo started it (then it stops it, and may say more). */
export interface DemoEngine {
  url: string;
  credentials: { email: string; password: string };
  own: boolean;
}

/** The mailbox the demo sends from, on a domain of its own so that runs never collide. */
export interface Sender {
  domainName: string;
  email: string;
  password: string;
}

export function introduce(): void {
  say('Outbound demo: a campaign of 4 leads, a first email and one follow-up each, sent to a local');
  say('SMTP server that stands in for your mail provider. Nothing leaves this machine.');
  say();
}

export function newSender(): Sender {
  const domainName = `demo-${randomBytes(3).toString('hex')}.example.com`;
  return { domainName, email: `dana@${domainName}`, password: randomBytes(18).toString('base64url') };
}

/** Started while the engine starts; a failure surfaces where the demo awaits it. */
export function startSink(sender: Sender, run: DemoRun): Promise<SmtpSink> {
  const ready = startSmtpSink(sender.email, sender.password).then((smtp) => {
    run.onStopLast(() => smtp.stop()); // the engine may be sending to it until the engine stops
    return smtp;
  });
  ready.catch(() => {});
  return ready;
}

export function describeSink(smtp: SmtpSink): void {
  say(
    `A local SMTP server on 127.0.0.1:${smtp.port} plays your mail provider: it asks for a password (AUTH)` +
      (smtp.tls ? ' and offers STARTTLS with a throwaway certificate.' : ' (plain text: openssl was not found for STARTTLS).'),
  );
  say();
}

/** An engine already running on PORT (or DEMO_URL) when there is one, else one of the demo's own. */
export async function findOrStartEngine(run: DemoRun): Promise<DemoEngine> {
  const explicit = process.env.DEMO_URL?.replace(/\/+$/, '');
  const localUrl = `http://127.0.0.1:${process.env.PORT || 3000}`;
  const found = explicit ? await probe(explicit) : await probe(localUrl);
  if (explicit && found !== 'engine') {
    throw new DemoError(
      found === 'nothing'
        ? `DEMO_URL is ${explicit}, but nothing answers there. Start the engine (npm start), or unset DEMO_URL to let the demo start its own.`
        : `DEMO_URL is ${explicit}, but what answers there is not an Outbound engine (GET /v1/queue/status did not ask for a token).`,
    );
  }
  if (found === 'engine') return useRunningEngine(explicit ?? localUrl);
  if (found === 'other') say(`Something that is not an Outbound engine answers at ${localUrl}; the demo starts its own on a free port.`);
  return startOwnEngine(run);
}

function useRunningEngine(url: string): DemoEngine {
  const email = process.env.DEMO_EMAIL || process.env.ADMIN_EMAIL;
  const password = process.env.DEMO_EMAIL ? process.env.DEMO_PASSWORD : process.env.ADMIN_PASSWORD;
  say(`An Outbound engine is already running at ${url}: the demo uses it.`);
  if (!email || !password) {
    throw new DemoError(
      'To use it the demo must sign in: set DEMO_EMAIL and DEMO_PASSWORD (or ADMIN_EMAIL and ADMIN_PASSWORD) ' +
        `to an engine user's login and run it again, or stop that engine and the demo starts one of its own.`,
    );
  }
  say('Its clock runs at whatever TIME_SCALE it was started with, which the demo cannot change. Each mailbox');
  say('waits at least 8 minutes of engine time between two sends, and the follow-up goes 1 day (waitDays) of');
  say('engine time after the first email: with TIME_SCALE=1 that is real minutes and a real day. For the');
  say('one-minute demo, start that engine with TIME_SCALE=20000 (a day then passes in about 4 seconds).');
  say(`The demo's domain and campaign stay in that engine's data; at the end the campaign is archived and its`);
  say('mailbox removed, so nothing tries the stopped SMTP server again.');
  return { url, credentials: { email, password }, own: false };
}

/** Engine log lines worth a newcomer's attention: warnings and errors only, one line each. */
const quietSink: Sink = (line: Fields) => {
  const { time: _time, level, msg, ...rest } = line;
  if (level !== 'warn' && level !== 'error') return;
  const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
  say(`  engine ${level}: ${msg}${extra.length > 400 ? extra.slice(0, 400) + '…' : extra}`);
};

async function startOwnEngine(run: DemoRun): Promise<DemoEngine> {
  say(`Starting an engine in this process: data in memory, TIME_SCALE=${TIME_SCALE}, so one day of engine time`);
  say(
    `passes in ${(DAY_MS / TIME_SCALE / 1000).toFixed(1)} seconds (starting takes 10 to 30 seconds, mostly DynamoDB Local, a Java process)…`,
  );
  const credentials = { email: 'demo@example.com', password: randomBytes(18).toString('base64url') };
  // Imported here so that using a running engine never loads DynamoDB Local or the AWS SDK.
  const { startEngine } = await import('../engine.ts');
  const started = Date.now();
  const engine = await startEngine({ port: 0, dataDir: 'memory', timeScale: TIME_SCALE, admin: credentials, sink: quietSink }).catch(
    (err) => {
      throw new DemoError(
        `The engine could not start: ${(err as Error).message} (DynamoDB Local needs a Java runtime, 17 or newer: see the README).`,
      );
    },
  );
  run.onStop(() => engine.stop());
  say(`The engine listens on ${engine.url} (started in ${((Date.now() - started) / 1000).toFixed(1)} s).`);
  return { url: engine.url, credentials, own: true };
}

export async function signIn(engine: DemoEngine): Promise<Client> {
  const api = new Client(engine.url);
  const { email } = engine.credentials;
  const login = await api.request('POST', '/v1/auth/login', engine.credentials);
  if (login.status !== 200) {
    throw new DemoError(
      login.status === 429
        ? `Signing in to ${engine.url} as ${email} was refused for now (too many attempts): try again in a few minutes.`
        : `Signing in to ${engine.url} as ${email} failed (${login.status}): check DEMO_EMAIL and DEMO_PASSWORD.`,
    );
  }
  api.token = login.body.token;
  say(`1. Signed in as ${email}${engine.own ? ' (a user made for this run)' : ''}: POST /v1/auth/login gave a bearer token.`);
  return api;
}

/** Steps 2 to 5: the domain, the mailbox on the sink, the campaign and its leads. Returns the campaign's id. */
export async function setUp(api: Client, engine: DemoEngine, sender: Sender, smtp: SmtpSink, run: DemoRun): Promise<string> {
  // On an engine the demo did not start, what it made must not keep sending to a stopped sink.
  const undo = (path: string) => {
    if (!engine.own) run.onStop(async () => void (await api.request('DELETE', path)));
  };
  const domainId = await addDomain(api, sender);
  const mailboxId = await connectMailbox(api, sender, smtp, domainId);
  undo(`/v1/mailboxes/${mailboxId}`);
  const campaignId = await createCampaign(api, mailboxId);
  undo(`/v1/campaigns/${campaignId}`); // archived before the mailbox is removed: cleanups run in reverse
  await addLeads(api, campaignId);
  return campaignId;
}

async function addDomain(api: Client, sender: Sender): Promise<string> {
  const domain = await api.expect('Creating the domain', 201, 'POST', '/v1/domains', {
    domainName: sender.domainName,
    mailingAddress: MAILING_ADDRESS,
  });
  say(`2. Added the sending domain ${sender.domainName}, with the postal address every email from it must carry:`);
  say(indent(MAILING_ADDRESS));
  return domain.id;
}

async function connectMailbox(api: Client, sender: Sender, smtp: SmtpSink, domainId: string): Promise<string> {
  const mailbox = await api.expect('Creating the mailbox', 201, 'POST', '/v1/mailboxes', {
    email: sender.email,
    domainId,
    smtpHost: '127.0.0.1',
    smtpPort: smtp.port,
    authPassword: sender.password,
    senderName: SENDER_NAME,
    dailyCap: 100,
  });
  say(`3. Connected the mailbox ${sender.email} ("${SENDER_NAME}") on that SMTP server; the engine signed in`);
  say('   to check the password, then stored it encrypted (it is never returned).');
  return mailbox.id;
}

async function createCampaign(api: Client, mailboxId: string): Promise<string> {
  const campaign = await api.expect('Creating the campaign', 201, 'POST', '/v1/campaigns', { ...CAMPAIGN, mailboxIds: [mailboxId] });
  say(`4. Created the campaign "${campaign.name}" (content quality ${campaign.contentQuality}/100):`);
  say('      subject    {Quick|Short} question for {{company}}        (spintax picks one of the two)');
  say('      first      "Hi {{firstName}}, …" signed {{senderName}}');
  say('      follow-up  1 day later, in the same thread');
  return campaign.id;
}

async function addLeads(api: Client, campaignId: string): Promise<void> {
  for (const lead of LEADS) await api.expect(`Adding the lead ${lead.email}`, 201, 'POST', '/v1/leads', { campaignId, ...lead });
  say(`5. Added ${LEADS.length} leads: ${LEADS.map((l) => l.email).join(', ')}`);
  say('   lena@ is in Germany (customFields.country DE), an EU recipient: an email written by AI would end with a');
  say('   disclosure line for her; this campaign sends its plain template, so hers has none. info@ has no first');
  say('   name: the launch check warns about it, and the email says "Hi there".');
}

export async function checkLaunch(api: Client, campaignId: string): Promise<void> {
  const check = await api.expect('The launch check', 200, 'GET', `/v1/campaigns/${campaignId}/launch-check`);
  say(`6. Launch check: ${check.canLaunch ? 'ready' : 'NOT ready'}; passed ${(check.passed as string[]).join(', ')}.`);
  for (const p of check.problems as { code: string; message: string }[]) say(`      problem ${p.code}: ${p.message}`);
  for (const w of check.warnings as { code: string; message: string }[]) say(`      warning ${w.code}: ${w.message}`);
  if (!(check.warnings as unknown[]).length) say('      no warnings.');
  if (!check.canLaunch) throw new DemoError('The launch check found problems (above), so the campaign cannot launch.');
}

/** Returns when the launch was asked for: the demo's deadline and timings count from it. */
export async function launch(api: Client, campaignId: string, engine: DemoEngine): Promise<number> {
  const launchedAt = Date.now();
  await api.expect('Launching', 200, 'POST', `/v1/campaigns/${campaignId}/launch`);
  say(`7. Launched at ${clock(launchedAt)}. Now the queue works: every send waits its turn (8 to 10 minutes of engine`);
  say('   time between two sends from one mailbox), and each follow-up waits its day.');
  say();
  say(
    `Waiting for ${EXPECTED} emails (${LEADS.length} first emails, ${LEADS.length} follow-ups); queue counts are printed when they change`,
  );
  say(
    `(delayed = planned for later, waiting = due now, active = being sent, completed = sent${engine.own ? '' : ', for the whole engine'}):`,
  );
  return launchedAt;
}
