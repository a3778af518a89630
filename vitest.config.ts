import { configDefaults, defineConfig } from 'vitest/config';

const INCLUDE = ['test/**/*.test.ts'];
/** Each starts a real opencode server, a browser or the built package. */
const E2E = ['**/*.e2e.test.ts', 'test/e2e/**'];
/** Files that replace a module with vi.mock: they need module instances of their own. */
const MOCKING = ['test/agenda/store-write.test.ts'];

const shared = { testTimeout: 20_000, hookTimeout: 60_000 };

/**
 * `npm run test:unit` sets ORCA_TEST_UNIT=1: no e2e files, and the files of a worker share the modules
 * they load (isolate: false) instead of each loading src/ again. `npm test` (CI) runs every file, each in
 * a fresh module graph, so a test that passes only after another file loaded something still fails there.
 */
const unit = process.env.ORCA_TEST_UNIT === '1';

export default defineConfig({
  test: {
    // e2e files each start a real opencode server; two cores, so keep parallelism modest.
    maxWorkers: 2,
    ...(unit
      ? {
          projects: [
            { test: { ...shared, name: 'unit', include: INCLUDE, exclude: [...configDefaults.exclude, ...E2E, ...MOCKING], isolate: false } },
            { test: { ...shared, name: 'unit-mocking', include: MOCKING } },
          ],
        }
      : { ...shared, include: INCLUDE }),
  },
});
