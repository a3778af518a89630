import { configDefaults, defineConfig } from 'vitest/config';

const INCLUDE = ['test/**/*.test.ts'];
/** Each starts a real opencode server, a browser or the built package. */
const E2E = ['**/*.e2e.test.ts', 'test/e2e/**'];
/**
 * Files that need a worker state of their own: one replaces a module with vi.mock; the others fake
 * timers, which, in a worker that unit files share, once stayed installed into later files (their
 * timeouts and polls then never fired: step-hooks and interrupted-write hung 20 s beside npm run bench).
 */
const ISOLATED = ['test/agenda/store-write.test.ts', 'test/agenda/runtime.test.ts', 'test/opencode/session-monitor.test.ts', 'test/notices/session-notes.test.ts', 'test/notices/toasts-watch.test.ts'];

const shared = { testTimeout: 20_000, hookTimeout: 60_000 };
/** Each unit test starts and ends with the real timers (test/support/timer-guard.ts). */
const unitSetup = ['test/support/timer-guard.ts'];

/**
 * The unit files of a worker share the modules they load (isolate: false) instead of each loading src/
 * again: about half the unit files' CPU (243 s against 126 s on two cores). The ISOLATED files get
 * module instances of their own; e2e files each run in a fresh module graph (their cost is the servers).
 * `npm run test:unit` sets ORCA_TEST_UNIT=1: the unit projects only.
 */
const unitOnly = process.env.ORCA_TEST_UNIT === '1';

export default defineConfig({
  test: {
    // e2e files each start a real opencode server; two cores, so keep parallelism modest.
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'unit', include: INCLUDE, exclude: [...configDefaults.exclude, ...E2E, ...ISOLATED], isolate: false, setupFiles: unitSetup } },
      { test: { ...shared, name: 'unit-isolated', include: ISOLATED, setupFiles: unitSetup } },
      ...(unitOnly ? [] : [{
            test: {
              ...shared,
              name: 'e2e',
              include: ['test/**/*.e2e.test.ts', 'test/e2e/**/*.test.ts'],
              // A shared opencode server per worker, for files that need none of their own (server: 'shared').
              globalSetup: ['test/support/shared-opencode.ts'],
            },
          }]),
    ],
  },
});
