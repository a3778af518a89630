// The `opencode serve` child process: its own process group, a log buffer, readiness from
// the stdout line, and termination that reaches every process it started.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { freshPort } from './fresh-port.js';
import { opencodeBinary } from './opencode-sandbox.js';

export type OpencodeProcess = {
  /** Resolves with the server URL from the "listening" line; rejects with the log if it never comes. */
  ready: Promise<string>;
  logs(): string;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
  /** SIGTERM the group, SIGKILL after `graceMs`, wait for the exit. */
  terminate(graceMs?: number): Promise<void>;
  /** SIGKILL the group and wait for the exit, as a crash would end it. */
  kill9(): Promise<void>;
};

const READY_LINE = /opencode server listening on (http:\/\/127\.0\.0\.1:(\d+))/;

// Process groups still alive when the test process exits are killed so no server outlives a run.
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
});

export function spawnOpencode({ args, cwd, env, startTimeoutMs, onOutput, accountAs }: {
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  /** Also handed every chunk of stdout and stderr (the shared servers write them to a file). */
  onOutput?: (chunk: Buffer) => void;
  /** The name its line in ORCA_E2E_CPU_LOG carries instead of the test file's. */
  accountAs?: string;
}): OpencodeProcess {
  const child = spawn(opencodeBinary(), args, {
    cwd,
    env,
    detached: true, // own process group, so termination also reaches its children
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`Expected to spawn ${opencodeBinary()}, but it has no pid.`);
  const pgid = child.pid;
  liveGroups.add(pgid);
  let log = '';
  const logs = () => log;
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  // The group can outlive its leader: reap leftovers once the server itself is gone, and know when they
  // are gone too (one still writing, such as OpenCode's install in .opencode/, would race the sandbox's removal).
  const groupGone = exited.then(async () => {
    killGroup(pgid, 'SIGKILL');
    liveGroups.delete(pgid);
    await untilGroupGone(pgid);
  });

  // Readiness is the stdout line, never a health poll: a request accepted during start-up can hang.
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(pgid, 'SIGKILL');
      reject(new Error(`Expected "opencode server listening on …" within ${startTimeoutMs} ms.\n--- server log ---\n${log}`));
    }, startTimeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      onOutput?.(chunk);
      log += chunk.toString('utf8');
      const match = READY_LINE.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      onOutput?.(chunk);
      log += chunk.toString('utf8');
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`Expected opencode serve to start, but it exited (${code}).\n--- server log ---\n${log}`));
    });
  });

  const account = () => accountCpu(pgid, log, accountAs);
  return {
    ready,
    logs,
    exited,
    async terminate(graceMs = 5_000) {
      if (!liveGroups.has(pgid)) return;
      account();
      killGroup(pgid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(pgid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      await groupGone;
    },
    async kill9() {
      if (liveGroups.has(pgid)) account();
      killGroup(pgid, 'SIGKILL');
      await exited;
      await groupGone;
    },
  };
}

/**
 * `opencode serve` on 127.0.0.1 at a fresh port (see fresh-port.ts), ready to take requests; if something
 * grabs the port before OpenCode binds it, OpenCode exits with "ServeError" and another port is tried.
 */
export async function launchOpencode({ logLevel, ...spawnOptions }: Omit<Parameters<typeof spawnOpencode>[0], 'args'> & { logLevel?: string }): Promise<OpencodeProcess> {
  for (let attempt = 1; ; attempt++) {
    const args = ['serve', '--hostname', '127.0.0.1', '--port', String(await freshPort()), '--print-logs'];
    if (logLevel) args.push('--log-level', logLevel);
    const child = spawnOpencode({ ...spawnOptions, args });
    try {
      await child.ready;
      return child;
    } catch (error) {
      await child.kill9();
      if (attempt >= 3 || !child.logs().includes('ServeError')) throw error;
    }
  }
}

/** Until no process of the group is left (killed ones take a moment to exit), at most GROUP_GONE_MS. */
async function untilGroupGone(pgid: number): Promise<void> {
  const until = Date.now() + GROUP_GONE_MS;
  while (Date.now() < until) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return; // ESRCH: none left
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const GROUP_GONE_MS = 5_000;

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * ORCA_E2E_CPU_LOG=path: where the suite's CPU goes. Each server, as it is stopped or killed, appends a
 * line: test file, CPU ms of the server's own threads, of the children it reaped (git), the instances it
 * created (one per directory), user ms, system ms, model requests (LLM calls), sessions created. Read just
 * before the signal, so a killed server counts.
 */
function accountCpu(pid: number, log: string, accountAs: string | undefined): void {
  const path = process.env.ORCA_E2E_CPU_LOG;
  if (!path) return;
  let fields: string[];
  try {
    fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return; // the process is gone already: nothing to account
  }
  const ms = (i: number) => Number(fields[i]) * 10; // clock ticks (USER_HZ 100) to ms
  const count = (marker: string) => log.split(marker).length - 1;
  const instances = count('message="creating instance"');
  // vitest's worker knows the file it runs; elsewhere (bench, scripts) the script's path.
  const file = accountAs ?? (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath ?? process.argv[1];
  appendFileSync(path, `${file}\t${ms(11) + ms(12)}\t${ms(13) + ms(14)}\t${instances}\t${ms(11)}\t${ms(12)}\t${count('message=stream providerID=')}\t${count('message=created id=ses_')}\n`);
}
