/**
 * The esbuild options SST's Node runtime (3.19.3 and 4.17.0 alike) builds a function with
 * (pkg/runtime/node/build.go in SST's repository), for the properties a
 * Function's `nodejs` argument gives: ESM as `bundle.mjs`, the target its
 * runtime maps to, `module` before `main`, names kept, a linked source map,
 * `sharp` and `pg-native` left out, and a banner that gives an ESM bundle
 * `require`, `__filename` and `__dirname`. Pure data, so the project's
 * bundle tests can hold their own options to it.
 */
export interface NodeProperties {
  format?: 'esm' | 'cjs';
  minify?: boolean;
  banner?: string;
  /** A file whose default export is esbuild plugins (applied by the builder, not part of these options). */
  plugins?: string;
}

/** Runtime to esbuild target, as SST maps them. */
export const TARGETS: Record<string, string> = {
  'nodejs24.x': 'es2024',
  'nodejs22.x': 'es2023',
  'nodejs20.x': 'es2023',
  'nodejs18.x': 'es2022',
};

export const SST_BANNER = [
  `import { createRequire as topLevelCreateRequire } from 'module';`,
  `const require = topLevelCreateRequire(import.meta.url);`,
  `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
  `const __filename = topLevelFileUrlToPath(import.meta.url)`,
  `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
];

export function sstBuildOptions(runtime: string, props: NodeProperties = {}) {
  const esm = props.format !== 'cjs';
  return {
    platform: 'node' as const,
    bundle: true,
    external: ['sharp', 'pg-native'],
    keepNames: true,
    sourcemap: 'linked' as const,
    format: esm ? ('esm' as const) : ('cjs' as const),
    target: TARGETS[runtime] ?? 'esnext',
    mainFields: esm ? ['module', 'main'] : ['main'],
    banner: { js: (esm ? [...SST_BANNER, props.banner ?? ''] : [props.banner ?? '']).join('\n') },
    minify: props.minify ?? false,
  };
}
