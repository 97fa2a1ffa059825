import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { allRoutes, schedules, type FunctionDef } from '../functions/src/manifest.ts';
import { ensureTable, localDynamoClient } from '../packages/local/src/dynamo-local.ts';
import { startLocalKms } from '../packages/local/src/kms-server.ts';
import { startSqsLocal, type SqsLocal } from '../packages/local/src/sqs-local.ts';
import { sstBuildOptions } from '../deploy-rehearsal/src/sst-build-options.ts';
import { budgetOfFunction, BUNDLE_OPTIONS, buildBundles, KIT_PACKAGES, kib, type Bundle } from './bundles.ts';
import { RUNTIME } from './index.ts';

/** What a bundle answered, run alone in a folder with no node_modules. */
interface Smoke {
  code: number | null;
  stderr: string;
  result?: { loadedMs: number; out: any };
}

const RUNNER = `
const started = performance.now();
const { handler } = await import('./bundle.mjs');
const loadedMs = performance.now() - started;
const context = { awsRequestId: 'smoke-1', functionName: process.env.FN, getRemainingTimeInMillis: () => 25000 };
const out = await handler(JSON.parse(process.env.EVENT), context);
process.stdout.write('\\nSMOKE ' + JSON.stringify({ loadedMs, out }) + '\\n');
`;

/** A real API Gateway HTTP API (payload 2.0) event, as AWS sends it. */
function httpEvent(method: string, path: string, routeKey: string, headers: Record<string, string> = {}, body?: string) {
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'api.example.com', 'user-agent': 'smoke', ...headers },
    requestContext: {
      accountId: '000000000000',
      apiId: 'smoke',
      domainName: 'api.example.com',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'smoke' },
      requestId: `req-${randomUUID()}`,
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(body ? { body, isBase64Encoded: false } : { isBase64Encoded: false }),
  };
}

const scheduled = new Set(Object.values(schedules).map((s) => s.fn as string));

/** The event each function is tried with, and what it must answer. */
function trial(b: Bundle): { event: unknown; check: (out: any) => void } {
  const routes = allRoutes().filter((r) => r.fn === b.name);
  const guarded = routes.find((r) => !r.public);
  if (guarded) {
    // A token that is not ours: the handler reads the installation's signing key (the table and KMS) and refuses.
    const path = guarded.path.replace(/\{[^}]+\}/g, 'x1');
    return {
      event: httpEvent(guarded.method, path, guarded.key, { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' }),
      check: (out) => {
        expect(out.statusCode, b.name).toBe(401);
        expect(JSON.parse(out.body).error, b.name).toMatch(/\w/);
      },
    };
  }
  if (b.name === 'auth') {
    return {
      event: httpEvent(
        'POST',
        '/v1/auth/login',
        'POST /v1/auth/login',
        { 'content-type': 'application/json' },
        JSON.stringify({ email: 'nobody@example.com', password: 'not this one' }),
      ),
      check: (out) => expect(out.statusCode).toBe(401),
    };
  }
  if (b.name === 'fallback') {
    return {
      event: httpEvent('GET', '/v1/openapi.json', 'GET /v1/openapi.json'),
      check: (out) => expect(JSON.parse(out.body).info.version).toBe('1.0.0'),
    };
  }
  if (routes.length) {
    const r = routes[0]!;
    return {
      event: httpEvent(r.method, r.path.replace(/\{[^}]+\}/g, 'x1'), r.key),
      check: (out) => expect(out.statusCode, b.name).toBeLessThan(500),
    };
  }
  if (b.def.consumes) {
    const record = {
      messageId: 'm-1',
      receiptHandle: 'r',
      body: JSON.stringify({ jobId: 'no-such-job', delayMs: 0 }),
      attributes: { ApproximateReceiveCount: '1' },
      eventSource: 'aws:sqs',
    };
    return { event: { Records: [record] }, check: (out) => expect(out).toEqual({ batchItemFailures: [] }) };
  }
  if (scheduled.has(b.name)) {
    // EventBridge's scheduled event.
    return {
      event: {
        version: '0',
        id: randomUUID(),
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        time: new Date().toISOString(),
        detail: {},
      },
      check: (out) => expect(out).toBeTypeOf('object'),
    };
  }
  throw new Error(`No trial for ${b.name}`);
}

describe('the options the bundles are built with', () => {
  it('are SST 4.17.0’s for the arguments the stack gives every function, so the artifact tested is the one shipped', () => {
    // The stack passes runtime nodejs24.x and nodejs { format: 'esm', minify: true, sourcemap: true } (stacks/index.ts).
    const sst = sstBuildOptions(RUNTIME, { format: 'esm', minify: true });
    const ours: Record<string, unknown> = { ...BUNDLE_OPTIONS };
    for (const [key, value] of Object.entries(sst)) {
      // buildBundles asks for a source map (true is esbuild's linked map, SST's default).
      if (key === 'sourcemap') continue;
      expect(ours[key], key).toEqual(value);
    }
  });
});

describe('the Lambda bundles', () => {
  let dir: string;
  let bundles: Bundle[];
  let kms: Awaited<ReturnType<typeof startLocalKms>>;
  let sqs: SqsLocal;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'outbound-bundles-'));
    const endpoint = inject('dynamoEndpoint');
    const table = `t-${randomUUID()}`;
    // One pair for every bundled client, as a Lambda role gives: the table's database is the one its key id reaches.
    const credentials = inject('dynamoCredentials');
    const client = localDynamoClient(endpoint, credentials);
    [bundles, kms, sqs] = await Promise.all([
      buildBundles(join(dir, 'build')),
      startLocalKms({ dataDir: 'memory', credentials }),
      startSqsLocal(),
      ensureTable(client, table),
    ]);
    client.destroy();
    env = {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      // The SDK's own per-service endpoint settings point the bundled clients at the stand-ins.
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TABLE_NAME: table,
      KMS_KEY_ID: kms.keyId,
      PUBLIC_BASE_URL: 'https://api.example.com',
    };
  }, 240_000);

  afterAll(async () => {
    await Promise.all([kms?.stop(), sqs?.stop(), dir && rm(dir, { recursive: true, force: true })]);
  });

  it('stay within their budgets, and only the functions that use a kit carry its libraries', () => {
    expect(bundles.length).toBeGreaterThan(10);
    for (const b of bundles) {
      expect(kib(b.bytes), `${b.name}: ${kib(b.bytes)} KiB`).toBeLessThanOrEqual(budgetOfFunction(b.name, b.def));
      for (const [p, kits] of Object.entries(KIT_PACKAGES)) {
        const allowed = kits.some((kit) => (b.def as FunctionDef).uses?.includes(kit));
        if (!allowed) expect(b.packages.has(p), `${b.name} carries ${p} without a ${kits.join(' or ')} kit`).toBe(false);
      }
    }
    // The check can fail: the sender carries nodemailer and the AI SDKs, and no IMAP library.
    const sender = bundles.find((b) => b.def.consumes)!.packages;
    expect(sender).toContain('nodemailer');
    expect(sender).toContain('openai');
    expect(sender.has('imapflow')).toBe(false);
  });

  it('carry only the zod they use: none of its translations but English', () => {
    // `import { z } from 'zod'` hands esbuild zod's whole namespace object, so every bundle kept all of zod
    // (about 460 KiB: its 40-odd translations, the JSON Schema reader); `import * as z` lets it keep what is used.
    for (const b of bundles) {
      const zod = [...b.files].filter((f) => f.includes('node_modules/zod/'));
      expect(zod.length, b.name).toBeGreaterThan(0);
      expect(
        zod.filter((f) => /\/locales\/(?!en\.js$)/.test(f)),
        b.name,
      ).toEqual([]);
    }
  });

  it('each loads alone, with no node_modules, and answers a real event against the local stand-ins', async () => {
    const failures: string[] = [];
    // Two at a time: the machine has two cores.
    const queue = [...bundles];
    await Promise.all(
      [0, 1].map(async () => {
        for (let b = queue.shift(); b; b = queue.shift()) {
          const smoke = await run(b);
          if (!smoke.result) {
            failures.push(`${b.name} exited ${smoke.code}: ${smoke.stderr.slice(-800)}`);
            continue;
          }
          try {
            trial(b).check(smoke.result.out);
          } catch (err) {
            failures.push(`${b.name}: ${(err as Error).message} (answered ${JSON.stringify(smoke.result.out).slice(0, 300)})`);
          }
        }
      }),
    );
    expect(failures).toEqual([]);
  }, 240_000);

  async function run(b: Bundle): Promise<Smoke> {
    const own = await mkdtemp(join(dir, `${b.name}-`));
    await copyFile(b.file, join(own, 'bundle.mjs'));
    await writeFile(join(own, 'run.mjs'), RUNNER);
    const extra: Record<string, string> = { FN: `outbound-${b.name}`, EVENT: JSON.stringify(trial(b).event) };
    if (b.def.enqueues) extra.QUEUE_URL_SEND = sqs.urls.send!;
    if (b.def.uses?.includes('uploads')) extra.UPLOADS_BUCKET = 'smoke-uploads';
    return new Promise((done) => {
      const child = spawn(process.execPath, ['run.mjs'], { cwd: own, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => {
        const line = stdout.split('\n').find((l) => l.startsWith('SMOKE '));
        done({ code, stderr: stderr || stdout, result: line ? JSON.parse(line.slice(6)) : undefined });
      });
    });
  }
});
