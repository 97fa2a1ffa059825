import { spawn } from 'node:child_process';
import { access, constants, mkdir, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's chromium driven by playwright-core. playwright-core never
 * downloads a browser, and neither may we:
 * when the binary is missing it comes from apt, like every other server the
 * tests run.
 */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Test files run in parallel workers: one apt-get at a time, the rest wait and find it installed. */
const INSTALL_LOCK = join(tmpdir(), 'outbound-chromium-install.lock');
/** apt-get update plus chromium takes under a minute here; a lock this old belongs to a crashed run. */
const STALE_LOCK_MS = 10 * 60_000;

const exists = (file: string) =>
  access(file, constants.X_OK).then(
    () => true,
    () => false,
  );

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`))));
  });
}

async function withInstallLock<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      await mkdir(INSTALL_LOCK); // atomic: whoever creates it holds the lock
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const since = await stat(INSTALL_LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) await rmdir(INSTALL_LOCK).catch(() => {});
      else await sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    await rmdir(INSTALL_LOCK).catch(() => {});
  }
}

/** Installs Debian's chromium with apt-get unless it is there already. */
export async function ensureChromium(): Promise<void> {
  if (await exists(CHROMIUM)) return;
  if (process.getuid?.() !== 0) throw new Error(`${CHROMIUM} is missing and installing it needs root (apt-get install chromium)`);
  await withInstallLock(async () => {
    if (await exists(CHROMIUM)) return; // another worker installed it while we waited
    // Other helpers may hold dpkg's own lock (their installs are serialized by their own locks): wait for it.
    const wait = ['-o', 'DPkg::Lock::Timeout=300'];
    await run('apt-get', [...wait, 'update']);
    await run('apt-get', [...wait, 'install', '-y', 'chromium']); // with its recommends: fonts-liberation, mesa
    if (!(await exists(CHROMIUM))) throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing`);
  });
}

/** A headless Chromium; close it in afterAll. */
export async function launchBrowser(): Promise<Browser> {
  await ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
