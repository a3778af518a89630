import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // e2e files each start a real opencode server; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
