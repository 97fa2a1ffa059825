import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'functions/src/**/*.test.ts',
      'stacks/**/*.test.ts',
      'test/**/*.test.ts',
      'deploy-rehearsal/src/**/*.test.ts',
    ],
    // One DynamoDB Local for the whole run; each test file works in a table of its own.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Each file's engines are its own, so files run side by side. Vitest would take one fork fewer than the
    // machine's cores (one on a 2-core machine); most of an end-to-end file's time is spent waiting on
    // servers, timers and the store, so three forks keep both cores busy.
    pool: 'forks',
    poolOptions: { forks: { minForks: 1, maxForks: 3 } },
    testTimeout: 30_000,
    hookTimeout: 90_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
