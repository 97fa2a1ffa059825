/**
 * `npm run rehearse -- --platform DIR` (or SST_PLATFORM_DIR=DIR): bundles
 * sst.config.ts with SST's platform code the way `sst deploy` does, runs it
 * for a development stage and for production, and holds each run to SST's
 * own checks and to checks.ts (AWS-side refusals). Exits 1 on any problem.
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHECKS, checkStage } from './checks.ts';
import type { StageReport } from './report.ts';

const STAGES = ['dev', 'production'];
const HOW_TO_GET =
  'The rehearsal needs the platform/ folder of SST v4.17.0 (the version package.json pins), which is not on npm:\n' +
  '  git clone --depth 1 --branch v4.17.0 https://github.com/anomalyco/sst && git -C sst archive v4.17.0 platform | tar -x -C /tmp\n' +
  'then run: npm run rehearse -- --platform /tmp/platform  (or set SST_PLATFORM_DIR).';

export async function main(here: string, argv: string[]) {
  const at = argv.indexOf('--platform');
  const platform = at >= 0 ? argv[at + 1] : process.env.SST_PLATFORM_DIR;
  if (!platform) {
    console.log(`Deploy rehearsal skipped: no SST platform directory.\n${HOW_TO_GET}`);
    return 0;
  }
  const platformDir = resolve(platform);
  if (!existsSync(join(platformDir, 'src/auto/run.ts'))) {
    console.error(`${platformDir} is not SST's platform folder (no src/auto/run.ts).\n${HOW_TO_GET}`);
    return 1;
  }
  const root = resolve(here, '..');
  const out = join(here, '.out');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const bundle = await bundleConfig(here, root, platformDir, out);
  const config = await evalConfig(here, root, platformDir, out);

  let failed = 0;
  for (const stage of STAGES) {
    const started = Date.now();
    const reportFile = join(out, `${stage}.json`);
    const child = spawnSync(process.execPath, [bundle], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        REHEARSAL_STAGE: stage,
        REHEARSAL_ROOT: root,
        REHEARSAL_WORK: join(out, stage),
        REHEARSAL_CACHE: join(out, 'bundles'),
        REHEARSAL_PLATFORM: platformDir,
        REHEARSAL_REPORT: reportFile,
        // SST defines $app, $cli and $dev before any of its code loads (some of it reads $app at import).
        REHEARSAL_GLOBALS: JSON.stringify({
          app: { ...config.app({ stage }), stage, providers: { aws: {} } },
          dev: false,
          cli: { command: 'deploy', paths: { root, work: join(out, stage), platform: platformDir }, state: { version: {} } },
        }),
        // The operator's choices are the environment's: rehearse the defaults, not whatever this shell holds.
        OUTBOUND_DOMAIN: '',
        OUTBOUND_DOMAIN_CERT_ARN: '',
        OUTBOUND_ALARM_EMAIL: stage === 'production' ? 'ops@example.com' : '',
      },
    });
    if (child.status !== 0 || !existsSync(reportFile)) {
      console.error(`✗ ${stage}: the rehearsal itself stopped (exit ${child.status}).`);
      failed++;
      continue;
    }
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as StageReport;
    const problems = [...new Set(report.errors.map((e) => `SST: ${e}`)), ...checkStage(report)];
    const fns = report.resources.filter((r) => r.type === 'aws:lambda/function:Function').length;
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (problems.length) {
      failed++;
      console.error(`✗ ${stage}: ${problems.length} problem(s) in ${report.resources.length} resources (${fns} functions), ${secs} s`);
      for (const p of problems) console.error(`  - ${p}`);
    } else {
      console.log(
        `✓ ${stage}: ${report.resources.length} resources (${fns} functions bundled), SST's checks and ${Object.keys(CHECKS).length} AWS-side checks pass, ${secs} s`,
      );
    }
  }
  return failed ? 1 : 0;
}

/**
 * One ESM file the way SST's CLI evaluates a config: SST's shim injected (the
 * `$interpolate`, `$transform`... globals), `sst` and `aws` as globals, `$app`,
 * `$cli` and `$dev` defined, Pulumi and the platform's npm packages taken from
 * this folder's node_modules.
 */
async function bundleConfig(here: string, root: string, platform: string, out: string) {
  const entry = join(out, 'entry.ts');
  writeFileSync(
    entry,
    [
      `import { rehearse } from ${JSON.stringify(join(here, 'src/stage.ts'))};`,
      `import { run } from ${JSON.stringify(join(platform, 'src/auto/run.ts'))};`,
      `import config from ${JSON.stringify(join(root, 'sst.config.ts'))};`,
      `import * as aws from '@pulumi/aws';`,
      `import * as sst from ${JSON.stringify(join(platform, 'src/components/index.ts'))};`,
      // Globals of the config only (its run() reads them when called): injected into every file they would make import cycles.
      `Object.assign(globalThis, { aws, sst });`,
      `await rehearse(config, run);`,
    ].join('\n'),
  );
  const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const file = join(out, 'stage.mjs');
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    inject: [join(platform, 'src/shim/run.js')],
    define: { $app: 'globalThis.__rehearsal.app', $cli: 'globalThis.__rehearsal.cli', $dev: 'globalThis.__rehearsal.dev' },
    external: [...Object.keys(pkg.dependencies), '@pulumi/*', '@aws-sdk/*', '@smithy/*'],
    nodePaths: [join(here, 'node_modules')],
    banner: {
      js: `import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url); globalThis.__rehearsal = JSON.parse(process.env.REHEARSAL_GLOBALS);`,
    },
    logLevel: 'error',
  });
  return file;
}

/** The config's `app()`, evaluated first as SST does, to learn the stage's removal and protect settings. */
async function evalConfig(here: string, root: string, platform: string, out: string) {
  const file = join(out, 'config.mjs');
  // SST 3 ships the shim that gives the config `$config` alone; SST 4's CLI makes it itself, so the rehearsal writes the same two lines.
  let boot = join(platform, 'src/shim/boot.js');
  if (!existsSync(boot)) {
    boot = join(out, 'boot.js');
    writeFileSync(boot, `import { $config } from ${JSON.stringify(join(platform, 'src/config.ts'))};\nexport { $config as "$config" };\n`);
  }
  await build({
    entryPoints: [join(root, 'sst.config.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    inject: [boot],
    external: ['./stacks/*'],
    nodePaths: [join(here, 'node_modules')],
    logLevel: 'error',
  });
  return (await import(pathToFileURL(file).href)).default as { app(input: { stage: string }): Record<string, unknown> };
}
