import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'functions/src/**/*.test.ts', 'stacks/**/*.test.ts', 'test/**/*.test.ts'],
    // One DynamoDB Local for the whole run; each test file works in a table of its own.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Files run in parallel on the two cores; each file's engines are its own.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 90_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
