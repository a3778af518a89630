// Shared `opencode serve` processes for the e2e project (vitest globalSetup): a server costs about
// 3.3 s of CPU to start, and most e2e files need nothing of a server of their own. A file that passes
// `server: 'shared'` to startOpencode gets its own project (its own sandbox folder, its config in the
// project's .opencode/opencode.json) on the shared server of its vitest worker; OpenCode runs one
// instance per directory, so files never see each other's sessions, agents or plugin options.
// Everything of the server itself (its environment, home, allocator, catalog, a kill -9, a restart)
// stays with a server of the file's own.
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { launchOpencode, type OpencodeProcess } from './opencode-process.js';
import { createSandbox, hermeticEnv, serverTuning } from './opencode-sandbox.js';

export type SharedServer = {
  url: string;
  /** The server's HOME: its XDG dirs hold every shared project's sessions and Orca's worktree slots. */
  homeDir: string;
  /** Every line the server wrote, every project's (stdout and stderr). */
  logPath: string;
};

declare module 'vitest' {
  export interface ProvidedContext {
    /** One shared server per vitest worker (VITEST_POOL_ID 1, 2, … maxWorkers). */
    sharedOpencode: SharedServer[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // As many as vitest's workers: a worker runs its files one at a time, so a server's log from a
  // project's opening on is that file's.
  const count = Math.max(1, project.globalConfig.maxWorkers);
  const started = await Promise.allSettled(Array.from({ length: count }, () => startShared()));
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const teardown = async () => {
    await Promise.all(servers.map(async ({ child, rootDir, log }) => {
      await child.terminate();
      await new Promise((resolve) => log.end(resolve));
      if (!process.env.ORCA_E2E_KEEP) rmSync(rootDir, { recursive: true, force: true });
    }));
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  project.provide('sharedOpencode', servers.map((s) => s.shared));
  return teardown;
}

async function startShared(): Promise<{ shared: SharedServer; child: OpencodeProcess; rootDir: string; log: WriteStream }> {
  // The project folder of the sandbox is only the server's cwd: every file brings its own project.
  const sandbox = createSandbox({ git: false });
  const logPath = join(sandbox.rootDir!, 'server.log');
  const log = createWriteStream(logPath);
  const env = hermeticEnv(sandbox.homeDir, serverTuning(sandbox.homeDir));
  const child = await launchOpencode({ cwd: sandbox.projectDir, env, startTimeoutMs: 60_000, onOutput: (chunk) => log.write(chunk), accountAs: 'shared server' }).catch((error: unknown) => {
    log.end();
    rmSync(sandbox.rootDir!, { recursive: true, force: true });
    throw error;
  });
  return { shared: { url: await child.ready, homeDir: sandbox.homeDir, logPath }, child, rootDir: sandbox.rootDir!, log };
}
