/**
 * Each function's KMS grants against what its code seals and opens, read
 * from the handler's own bundle (secretUse below).
 */
import { build, type Plugin } from 'esbuild';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allRoutes, functions, INSTALL_SECRET_PURPOSE, type FunctionDef } from '../functions/src/manifest.ts';
import { deploy } from './index.ts';
import type { Permission, Platform } from './platform.ts';

const root = resolve(import.meta.dirname, '..');
const defs = Object.entries(functions) as [string, FunctionDef][];

/** Only the project's own modules: npm packages cannot seal or open the engine's secrets. */
const ownCodeOnly: Plugin = {
  name: 'own-code-only',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@outbound/') ? undefined : { path: args.path, external: true }));
  },
};

interface Use {
  seals: Set<string>;
  opens: Set<string>;
}

/** The argument texts of the call whose `(` is at `open`, split at top-level commas. */
function argsAt(code: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let from = open + 1;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') {
      if (--depth === 0) return [...args, code.slice(from, i).trim()];
    } else if (c === ',' && depth === 1) {
      args.push(code.slice(from, i).trim());
      from = i + 1;
    }
  }
  throw new Error('unbalanced call');
}

/**
 * Reads the handler's bundle (tree-shaken, so only code that can run is in
 * it): every call of sealSecret, openSecret or openSecretCached, and the
 * purpose of the encryption context it passes, whether a helper
 * (`passwordContext(id)`) or a value (`context`) defined in the bundle.
 */
async function secretUse(def: FunctionDef): Promise<Use> {
  const result = await build({
    entryPoints: [resolve(root, 'functions/src', def.handler)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    plugins: [ownCodeOnly],
    logLevel: 'silent',
    outdir: '/tmp/unused',
  });
  const code = result.outputFiles.map((f) => f.text).join('\n');
  const helpers = new Map<string, string>();
  for (const m of code.matchAll(/(\w+) = (?:\([^)]*\)|\w+) => \(\{\s*purpose: "([a-z-]+)"/g)) helpers.set(m[1]!, m[2]!);
  const values = [...code.matchAll(/(\w+) = \{\s*purpose: "([a-z-]+)"/g)].map((m) => ({ name: m[1]!, purpose: m[2]!, at: m.index! }));
  // The secrets module's own calls (openSecretCached calls openSecret) pass their caller's context along.
  const from = code.indexOf('// packages/core/src/secrets/index.ts');
  const to = from < 0 ? -1 : code.indexOf('\n// ', from + 1);
  const use: Use = { seals: new Set(), opens: new Set() };
  for (const m of code.matchAll(/(?<!function )\b(sealSecret|openSecretCached|openSecret)\d*\(/g)) {
    if (m.index! > from && m.index! < to) continue;
    const context = argsAt(code, m.index! + m[0].length - 1)[2] ?? '';
    const name = /^\w+/.exec(context)?.[0] ?? '';
    const purpose = context.includes('(') ? helpers.get(name) : values.filter((v) => v.name === name && v.at < m.index!).pop()?.purpose;
    expect(purpose, `${def.handler}: the purpose of ${m[1]}(…, ${context})`).toBeDefined();
    (m[1] === 'sealSecret' ? use.seals : use.opens).add(purpose!);
  }
  return use;
}

const uses = new Map<string, Use>();
beforeAll(async () => {
  for (const [name, def] of defs) uses.set(name, await secretUse(def));
}, 60_000);

const sorted = (s: Iterable<string>) => [...new Set(s)].sort();

describe('KMS grants follow what each function’s code seals and opens', () => {
  it('declares in the manifest only what its code can seal and open (the local runtime refuses anything beyond it, so the tests prove it enough)', () => {
    for (const [name, def] of defs) {
      const use = uses.get(name)!;
      for (const p of def.opens ?? []) expect([...use.opens], `${name} opens ${p}`).toContain(p);
      for (const p of def.seals ?? []) expect([...use.seals], `${name} seals ${p}`).toContain(p);
    }
  });

  it('lets each role decrypt and make data keys only for those purposes (KMS checks the encryption context)', () => {
    const made: Record<string, Permission[]> = {};
    const stub = (kind: string) =>
      class {
        arn = `${kind}:arn`;
        name = `${kind}:name`;
        url = `${kind}:url`;
        value = '';
        nodes = { queue: { name: '' }, api: { id: '' } };
        constructor(name: string, args?: { permissions?: Permission[] }) {
          if (kind === 'Function') made[name] = args!.permissions!;
        }
        route() {
          return { nodes: { route: '' } };
        }
        subscribe() {}
        notify() {}
      };
    const kinds = [
      'Function',
      'Dynamo',
      'Queue',
      'ApiGatewayV2',
      'Cron',
      'Secret',
      'KmsKey',
      'Bucket',
      'Topic',
      'TopicSubscription',
      'MetricAlarm',
    ];
    deploy({ stage: 'test', ...Object.fromEntries(kinds.map((k) => [k, stub(k)])) } as unknown as Platform);
    for (const [name] of defs) {
      const kms = made[name.charAt(0).toUpperCase() + name.slice(1)]!.filter((p) => p.actions.some((a) => a.startsWith('kms:')));
      const def = functions[name as keyof typeof functions] as FunctionDef;
      const purposes = (action: string) => {
        const grants = kms.filter((p) => p.actions.includes(action));
        // One grant; or, for a function held to some of the installation's secrets, one for those by name and one for the rest.
        expect(grants.length, `${name} ${action}`).toBeLessThanOrEqual(def.installSecrets ? 2 : 1);
        const out: string[] = [];
        for (const grant of grants) {
          expect(grant.actions, name).toEqual([action]);
          const [purpose, ...more] = grant.conditions ?? [];
          expect([purpose?.test, purpose?.variable], name).toEqual(['StringEquals', 'kms:EncryptionContext:purpose']);
          const named = purpose!.values.includes(INSTALL_SECRET_PURPOSE) && def.installSecrets;
          expect(more, name).toEqual(
            named ? [{ test: 'StringEquals', variable: 'kms:EncryptionContext:name', values: def.installSecrets }] : [],
          );
          out.push(...purpose!.values);
        }
        return sorted(out);
      };
      expect(purposes('kms:Decrypt'), `${name} may decrypt`).toEqual(sorted([INSTALL_SECRET_PURPOSE, ...(def.opens ?? [])]));
      expect(purposes('kms:GenerateDataKey'), `${name} may seal`).toEqual(sorted([INSTALL_SECRET_PURPOSE, ...(def.seals ?? [])]));
    }
  });

  it('keeps the functions behind public routes from opening mailbox passwords and refresh tokens', () => {
    const publicFns = new Set(
      allRoutes()
        .filter((r) => r.public)
        .map((r) => r.fn as string),
    );
    expect([...publicFns].sort()).toEqual(expect.arrayContaining(['unsubscribe', 'leads', 'oauth']));
    for (const name of publicFns)
      expect(
        ((functions[name as keyof typeof functions] as FunctionDef).opens ?? []).filter((p) => p.startsWith('mailbox-')),
        name,
      ).toEqual([]);
  });
});
