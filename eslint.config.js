// Lint for the whole repository (`npm run lint`). The rules that matter most here are the type-aware promise
// rules: a promise nobody awaits in a Lambda or queue handler is work the runtime may freeze half done, and its
// rejection is lost.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const typeAwarePromiseRules = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/await-thenable': 'error',
  // Only the case that changes behaviour: a promise returned unawaited inside try/catch escapes the catch.
  '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
};

// The few Node globals the plain JavaScript files use (TypeScript checks the .ts files' names itself).
const nodeGlobals = { process: 'readonly', console: 'readonly', URL: 'readonly' };

export default defineConfig([
  globalIgnores([
    '**/node_modules/',
    '**/dist/',
    '**/.sst/',
    '**/.data/',
    '**/coverage/',
    // The deploy rehearsal's stages and bundles.
    'deploy-rehearsal/.out/',
    'deploy-rehearsal/.out-*/',
    // Generated: the OpenAPI document and the client's types drawn from it.
    'docs/openapi.json',
    'packages/client/src/schema.ts',
  ]),

  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: nodeGlobals },
  },

  // Every TypeScript file, .tsx included, gets the syntax-only recommended set; the type-aware rules are
  // added below only where a tsconfig can give them types.
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    rules: {
      // A leading underscore is the code's mark for a name kept on purpose: a parameter a signature needs, a field
      // left out of a rest copy, a type-level check (`type _Fits = ...`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },

  // Tests and the demo read the API's JSON answers field by field (`res.body.leads[0].id`), as a client does, and
  // the deploy rehearsal handles Pulumi's untyped resource inputs: there `any` is the honest type. Engine code
  // stays without it.
  {
    files: ['test/**/*.ts', '**/*.test.ts', 'packages/local/src/demo/**/*.ts', 'deploy-rehearsal/src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },

  // The files tsconfig.json includes (or, for a package with its own tsconfig such as a console with the DOM
  // library, that package's): the project service finds the nearest tsconfig.json for each file.
  {
    files: [
      'packages/*/src/**/*.ts',
      'packages/*/src/**/*.tsx',
      'functions/src/**/*.ts',
      'stacks/**/*.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
      'sst.config.ts',
      'vitest.config.ts',
      'deploy-rehearsal/src/checks*.ts',
      'deploy-rehearsal/src/report.ts',
      'deploy-rehearsal/src/sst-build-options.ts',
    ],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: typeAwarePromiseRules,
  },

  // JSX event handlers may be async: the browser reports a rejected one as it does a thrown one, and the event
  // needs no answer. Promises everywhere else in a component are still checked.
  {
    files: ['packages/*/src/**/*.tsx'],
    rules: { '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }] },
  },
]);
