/**
 * Cold starts: each Lambda bundle (stacks/bundles.ts) loaded in a fresh Node
 * process, as Lambda's init does, next to the floor every function pays (a
 * bundle of the DynamoDB client alone, built the same way). The median of
 * five loads is printed; the figures are relative because this machine is
 * shared and noisy.
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_OPTIONS, buildBundles, kib, root } from '../stacks/bundles.ts';

const LOADS = 5;

function loadMs(file: string): number {
  const times: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const out = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`,
      ],
      {
        env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1' },
        encoding: 'utf8',
      },
    );
    if (out.status !== 0) throw new Error(`${file} did not load: ${out.stderr.slice(0, 400)}`);
    times.push(Number(out.stdout.trim()));
  }
  return times.sort((a, b) => a - b)[Math.floor(LOADS / 2)]!;
}

export async function coldStartFigures() {
  const dir = await mkdtemp(join(tmpdir(), 'outbound-cold-'));
  try {
    console.log('\nCold starts (each bundle loaded in a new Node process, median of 5):');
    const floorEntry = join(dir, 'floor.ts');
    await writeFile(
      floorEntry,
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const handler = () => new DynamoDBClient({});\n",
    );
    await build({ ...BUNDLE_OPTIONS, entryPoints: [floorEntry], outfile: join(dir, 'floor.mjs'), nodePaths: [join(root, 'node_modules')] });
    const floor = loadMs(join(dir, 'floor.mjs'));
    console.log(`  floor (DynamoDB client alone)   ${floor.toFixed(0).padStart(5)} ms`);
    const bundles = (await buildBundles(join(dir, 'build'))).sort((a, b) => a.bytes - b.bytes);
    for (const b of bundles) {
      const ms = loadMs(b.file);
      console.log(
        `  ${b.name.padEnd(16)} ${String(kib(b.bytes)).padStart(5)} KiB ${ms.toFixed(0).padStart(5)} ms  ${(ms / floor).toFixed(1)}x the floor`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
