/**
 * A real IMAP server for tests: a throwaway Dovecot (Debian's dovecot-imapd and
 * dovecot-lmtpd, installed on first use) running from a temp dir on free ports.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { appendFile, chmod, mkdir, mkdtemp, open, readFile, rm, rmdir, stat, writeFile, utimes } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';
import { createTransport } from 'nodemailer';
import { selfSignedCert } from './smtp.ts';
import { tail, waitFor } from './wait-for.ts';

const run = promisify(execFile);

export interface TestDovecot {
  imapPort: number;
  /** Implicit TLS (the 993 role), on a free port. */
  imapsPort: number;
  lmtpPort: number;
  host: '127.0.0.1';
  dir: string;
  /** Adds a login; Dovecot rereads the passwd-file when it changes. */
  addUser(user: string, pass: string): Promise<void>;
  /**
   * Puts a raw RFC 5322 message in a user's INBOX (through LMTP, as a mail server delivers, or with
   * `via: 'imap'` through IMAP APPEND, as a client files it) or Junk or Sent folder (IMAP APPEND).
   */
  deliver(to: string, raw: string, folder?: 'INBOX' | 'Junk' | 'Sent', via?: 'lmtp' | 'imap'): Promise<void>;
  stop(): Promise<void>;
}

let bumps = 0;

export interface DovecotOptions {
  /**
   * Also accept OAuth logins (SASL XOAUTH2 and OAUTHBEARER), checking each access token at this RFC 7662
   * introspection endpoint (POST `token=`; the answer's `active` must be true and its `email` the login's user).
   * Password logins (PLAIN, LOGIN) keep going to the users file. `mechanisms` narrows what is offered:
   * `['xoauth2']` is what Outlook's IMAP advertises, and makes imapflow, which prefers OAUTHBEARER, use XOAUTH2.
   * With oauth2 any user name is a mailbox (LMTP delivers to users the users file does not know).
   */
  oauth2?: { introspectionUrl: string; mechanisms?: ('xoauth2' | 'oauthbearer')[] };
}

export async function startDovecot(users: Record<string, string>, options: DovecotOptions = {}): Promise<TestDovecot> {
  const dovecot = await ensureDovecot();
  const dir = await mkdtemp(join(tmpdir(), 'outbound-dovecot-'));
  // Mail processes run as uid 2000 and must be able to reach DIR/mail.
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'ssl'));
  await mkdir(join(dir, 'mail'));
  await chmod(join(dir, 'mail'), 0o1777);
  const { key, cert } = await selfSignedCert();
  await writeFile(join(dir, 'ssl', 'cert.pem'), cert);
  await writeFile(join(dir, 'ssl', 'key.pem'), key, { mode: 0o600 });

  const logins = new Map(Object.entries(users));
  const usersFile = join(dir, 'users');
  await writeFile(usersFile, [...logins].map(([user, pass]) => passwdLine(user, pass)).join(''), { mode: 0o644 });

  const confPath = join(dir, 'dovecot.conf');
  if (options.oauth2) {
    // Dovecot's oauth2 passdb (since 2.2.28): POSTs the token to the introspection URL and takes `email` as the user.
    await writeFile(
      join(dir, 'dovecot-oauth2.conf.ext'),
      [
        'introspection_mode = post',
        `introspection_url = ${options.oauth2.introspectionUrl}`,
        'force_introspection = yes',
        'username_attribute = email',
        'active_attribute = active',
        'active_value = true',
        '',
      ].join('\n'),
    );
  }
  const oauthMechanisms = options.oauth2 ? [...new Set(options.oauth2.mechanisms ?? ['xoauth2', 'oauthbearer'])] : [];
  if (options.oauth2 && !oauthMechanisms.length) throw new Error('startDovecot: oauth2.mechanisms is empty');
  let ports: { imapPort: number; imapsPort: number; lmtpPort: number } | undefined;
  // A port picked free can be taken by another process before Dovecot binds it: try again.
  for (let attempt = 1; !ports; attempt++) {
    const picked = await pickPorts();
    await writeFile(confPath, config(dir, picked.imapPort, picked.imapsPort, picked.lmtpPort, oauthMechanisms));
    try {
      await startMaster(dovecot, confPath, join(dir, 'start.log'));
      await Promise.all([waitForPid(dir), ...Object.values(picked).map((port) => waitForPort(port))]);
      ports = picked;
    } catch (err) {
      const logs = await Promise.all(['start.log', 'dovecot.log'].map((f) => readFile(join(dir, f), 'utf8').catch(() => '')));
      await stopMaster(dir);
      if (attempt < 3 && /in use/i.test(logs.join('\n'))) continue;
      await rm(dir, { recursive: true, force: true });
      throw new Error(`dovecot did not start: ${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
    }
  }
  const { imapPort, imapsPort, lmtpPort } = ports;

  // If a test run dies without stop(), do not leave a daemon behind.
  const onExit = () => {
    const pid = readPidSync(dir);
    if (pid) killGroup(pid);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  return {
    imapPort,
    imapsPort,
    lmtpPort,
    host: '127.0.0.1',
    dir,
    async addUser(user, pass) {
      logins.set(user, pass);
      await appendFile(usersFile, passwdLine(user, pass));
      // Dovecot re-reads a passwd-file when its mtime changes, in whole seconds: move it forward
      // so an addition in the same second as the last read is seen too.
      const stamp = Math.floor(Date.now() / 1000) + ++bumps;
      await utimes(usersFile, stamp, stamp);
      // Then make sure the running auth process knows the user before a test relies on it.
      const doveadm = 'doveadm';
      for (let attempt = 0; ; attempt++) {
        const known = await run(doveadm, ['-c', confPath, 'auth', 'test', user, pass]).then(
          () => true,
          () => false,
        );
        if (known) return;
        if (attempt === 10) await run(doveadm, ['-c', confPath, 'reload']).catch(() => {});
        if (attempt > 40) throw new Error(`Dovecot does not know ${user} after adding it`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async deliver(to, raw, folder = 'INBOX', via = folder === 'INBOX' ? 'lmtp' : 'imap') {
      if (via === 'lmtp') return deliverByLmtp(lmtpPort, to, raw);
      const pass = logins.get(to);
      if (pass === undefined) throw new Error(`deliver: ${to} is not a user of this Dovecot`);
      return appendByImap(imapPort, to, pass, folder, raw);
    },
    async stop() {
      process.removeListener('exit', onExit);
      await stopMaster(dir);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until Dovecot's log has a line matching `pattern`, and returns the whole log. Dovecot's processes
 * (imap-login, auth, lmtp) hand their lines to its log process, which writes dovecot.log in its own time: a
 * client can have its answer (signed in, refused) before the line is there, so a log read once right after
 * can miss it. On timeout the error shows the log's last lines.
 */
export async function waitForLog(dovecot: Pick<TestDovecot, 'dir'>, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const read = () => readFile(join(dovecot.dir, 'dovecot.log'), 'utf8').catch(() => '');
  return waitFor(
    async () => {
      const text = await read();
      return text.search(pattern) !== -1 && text;
    },
    { timeoutMs, describe: `dovecot.log to match ${pattern}`, lastSeen: async () => `dovecot.log ends:\n${tail(await read())}` },
  );
}

function passwdLine(user: string, pass: string): string {
  if (/[:\n]/.test(user) || /\n/.test(pass)) throw new Error('users and passwords may not contain ":" or newlines');
  return `${user}:{PLAIN}${pass}\n`;
}

function config(dir: string, imapPort: number, imapsPort: number, lmtpPort: number, oauthMechanisms: string[] = []): string {
  const oauth2 = oauthMechanisms.length > 0;
  const dh = '/usr/share/dovecot/dh.pem';
  return `# Throwaway Dovecot ${new Date().toISOString()} for tests.
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
ssl = yes
ssl_cert = <${dir}/ssl/cert.pem
ssl_key = <${dir}/ssl/key.pem
${existsSync(dh) ? `ssl_dh = <${dh}` : ''}
disable_plaintext_auth = no
auth_mechanisms = plain login${oauth2 ? ` ${oauthMechanisms.join(' ')}` : ''}
auth_failure_delay = 0
# Say in dovecot.log why a login failed.
auth_verbose = yes
mail_location = maildir:${dir}/mail/%u
mail_fsync = never
first_valid_uid = 1000
${
  oauth2
    ? `passdb {
  driver = oauth2
  mechanisms = ${oauthMechanisms.join(' ')}
  args = ${dir}/dovecot-oauth2.conf.ext
}
`
    : ''
}passdb {
  driver = passwd-file
  ${oauth2 ? 'mechanisms = plain login' : ''}
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=2000 gid=2000 home=${dir}/mail/%u${oauth2 ? ' allow_all_users=yes' : ''}
}
namespace inbox {
  inbox = yes
  separator = /
  mailbox Junk {
    special_use = \\Junk
    auto = create
  }
  mailbox Sent {
    special_use = \\Sent
    auto = create
  }
}
service imap-login {
  inet_listener imap {
    port = ${imapPort}
  }
  inet_listener imaps {
    port = ${imapsPort}
    ssl = yes
  }
}
# No auth penalty: otherwise a wrong-password test makes the next login from 127.0.0.1 wait seconds.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = ${lmtpPort}
  }
}
`;
}

async function deliverByLmtp(port: number, to: string, raw: string): Promise<void> {
  const transport = createTransport({ lmtp: true, host: '127.0.0.1', port, ignoreTLS: true, logger: false });
  try {
    const from = /^From:[^\n]*?<?([^\s<>"@]+@[^\s<>"]+?)>?\s*$/im.exec(headerSection(raw))?.[1] ?? '';
    await transport.sendMail({ envelope: { from, to: [to] }, raw });
  } finally {
    transport.close();
  }
}

async function appendByImap(port: number, user: string, pass: string, folder: string, raw: string): Promise<void> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port,
    secure: false,
    auth: { user, pass },
    logger: false,
    disableAutoIdle: true,
    tls: { rejectUnauthorized: false },
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.append(folder, raw);
    await client.logout();
  } finally {
    if (!client.isClosed) client.close();
  }
}

function headerSection(raw: string): string {
  const end = raw.search(/\r?\n\r?\n/);
  return end === -1 ? raw : raw.slice(0, end);
}

/**
 * Runs `dovecot -c conf`, which forks the master and exits once the listeners are bound.
 * Its output goes to a file: the daemon would keep a pipe open forever.
 */
async function startMaster(binary: string, confPath: string, logPath: string): Promise<void> {
  const out = await open(logPath, 'w');
  try {
    const child = spawn(binary, ['-c', confPath], { stdio: ['ignore', out.fd, out.fd] });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) throw new Error(`dovecot exited with ${code}`);
  } finally {
    await out.close();
  }
}

/**
 * Kills the whole instance at once. The master is a session leader (its pid is the process
 * group), and a graceful SIGTERM takes seconds; a throwaway instance has nothing to save.
 */
async function stopMaster(dir: string): Promise<void> {
  const pid = readPidSync(dir);
  if (!pid) return;
  killGroup(pid);
  const deadline = Date.now() + 5_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(20);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // not running
    }
  }
}

/** The forked master writes its pid file a moment after `dovecot` itself has exited. */
async function waitForPid(dir: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!readPidSync(dir)) {
    if (Date.now() > deadline) throw new Error(`no ${dir}/run/master.pid within ${timeoutMs} ms`);
    await sleep(20);
  }
}

function readPidSync(dir: string): number | undefined {
  try {
    // Read synchronously: this also runs in the process 'exit' handler.
    const text = readFileSync(join(dir, 'run', 'master.pid'), 'utf8').trim();
    const pid = Number(text);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A zombie counts as gone: the master is reparented to an init that may reap it late. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** Three free ports, held open together so that they differ, then freed for Dovecot to bind. */
async function pickPorts(): Promise<{ imapPort: number; imapsPort: number; lmtpPort: number }> {
  const held: Server[] = [];
  try {
    return { imapPort: await holdFreePort(held), imapsPort: await holdFreePort(held), lmtpPort: await holdFreePort(held) };
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** Binds a free port on 127.0.0.1 and keeps it bound (in `held`) until the caller closes it. */
function holdFreePort(held: Server[]): Promise<number> {
  const server = createServer();
  held.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`port ${port} did not open within ${timeoutMs} ms`);
    await sleep(50);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------
// Installation

const INSTALL_LOCK = join(tmpdir(), 'outbound-dovecot-install.lock');
const STALE_LOCK_MS = 10 * 60_000;

/** Returns the dovecot binary, installing Debian's packages first if it is missing. */
async function ensureDovecot(): Promise<string> {
  const found = findDovecot();
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error('dovecot is not installed and installing it needs root (apt-get)');
  // vitest runs test files in several processes: one installs, the others wait for it.
  await acquireLock();
  try {
    const again = findDovecot();
    if (again) return again;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const options = { env, timeout: 5 * 60_000, maxBuffer: 64 * 1024 * 1024 };
    // Someone else's apt-get may hold dpkg's lock: wait for it rather than fail.
    const wait = ['-o', 'DPkg::Lock::Timeout=300'];
    await run('apt-get', [...wait, 'update'], options);
    await run('apt-get', [...wait, 'install', '-y', '--no-install-recommends', 'dovecot-imapd', 'dovecot-lmtpd'], options);
  } finally {
    await rmdir(INSTALL_LOCK).catch(() => {});
  }
  const installed = findDovecot();
  if (!installed) throw new Error('apt-get installed dovecot-imapd but no dovecot binary was found');
  return installed;
}

/** The dovecot binary, if it is there together with the IMAP and LMTP services (Debian's layout). */
function findDovecot(): string | undefined {
  const dirs = ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)];
  const binary = dirs.map((d) => join(d, 'dovecot')).find((p) => existsSync(p));
  const services = ['imap', 'imap-login', 'lmtp'].every((name) => existsSync(join('/usr/lib/dovecot', name)));
  return services ? binary : undefined;
}

/** mkdir is atomic: whoever creates the directory holds the lock. */
async function acquireLock(): Promise<void> {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      await mkdir(INSTALL_LOCK);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const since = await stat(INSTALL_LOCK).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (since > STALE_LOCK_MS) {
      await rmdir(INSTALL_LOCK).catch(() => {}); // a crashed installer's lock
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${INSTALL_LOCK}`);
    await sleep(250);
  }
}
