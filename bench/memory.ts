// Resident memory of a bench server: the `opencode serve` process (found as the process-group leader
// whose working directory is the project) and the processes it started (git, rg; found through
// /proc/<pid>/task/*/children, recursively). The process's own peak comes from the kernel's high
// water mark (VmHWM, exact, reset by writing 5 to /proc/<pid>/clear_refs); the peak of the process
// with its children is sampled (every 50 ms by default: a child lives as long as its git command).
// A child still running the server's own executable is a fork not yet turned into its command: its
// resident pages are the server's (shared until the exec), so it is not counted.
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';

const MiB = 1024;

/** `key:  123 kB` of /proc/<pid>/status, in KiB; NaN when the process is gone. */
function statusKiB(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  try {
    const found = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return found ? Number(found[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** The `opencode serve` process of a bench server: the process-group leader whose cwd is the project. */
export function serverPid(projectDir: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) !== projectDir) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      if (Number(fields[2]) === pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('opencode')) return pid;
    } catch {
      // gone, or not ours to read
    }
  }
  throw new Error(`no opencode server process found with its working directory at ${projectDir}`);
}

const exeOf = (pid: number) => {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
  }
};

/** The processes `pid` started, and theirs (forks of the server not yet exec'd left out). */
function descendants(pid: number, serverExe = exeOf(pid)): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const tid of tasks) {
      let text = '';
      try {
        text = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of text.split(' ').filter(Boolean).map(Number)) {
        if (exeOf(child) === serverExe) continue;
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

export interface MemorySnapshot {
  /** The server process's resident memory now, MiB. */
  rssMiB: number;
  /** The server process with the processes it started, now, MiB. */
  withChildrenMiB: number;
}

/** Resident memory of the server and its children right now. */
export function memoryNow(pid: number): MemorySnapshot {
  const own = statusKiB(pid, 'VmRSS');
  const children = descendants(pid).reduce((sum, child) => sum + (statusKiB(child, 'VmRSS') || 0), 0);
  return { rssMiB: own / MiB, withChildrenMiB: (own + children) / MiB };
}

export interface MemoryPeak {
  /** The server process's peak resident memory over the window (VmHWM), MiB. */
  peakMiB: number;
  /** Peak of the server plus its children over the samples, MiB. */
  peakWithChildrenMiB: number;
  /** Resident memory at the window's end, MiB. */
  endMiB: number;
  samples: number;
  everyMs: number;
  /** Whether VmHWM could be reset at the window's start (else the peak counts from the process's start). */
  fromWindowStart: boolean;
}

/**
 * Watches a server's memory from now until stop(): resets the process's high water mark, then
 * samples it with its children every `everyMs`.
 */
export function watchMemory(pid: number, everyMs = 50) {
  let fromWindowStart = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    fromWindowStart = false;
  }
  let peakWithChildren = 0;
  let samples = 0;
  const sample = () => {
    const now = memoryNow(pid);
    if (Number.isFinite(now.withChildrenMiB)) peakWithChildren = Math.max(peakWithChildren, now.withChildrenMiB);
    samples++;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop(): MemoryPeak {
      clearInterval(timer);
      sample();
      const hwm = statusKiB(pid, 'VmHWM') / MiB;
      return { peakMiB: hwm, peakWithChildrenMiB: Math.max(peakWithChildren, hwm), endMiB: statusKiB(pid, 'VmRSS') / MiB, samples, everyMs, fromWindowStart };
    },
  };
}
