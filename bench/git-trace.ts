// git's own account of the git processes a bench server ran (trace2, GIT_TRACE2_EVENT=<folder>: one
// file per process with its argv and its elapsed time), summed by what ran them and by subcommand:
// where a step's git time goes (Orca's snapshot of the user's tree, a slot's reset, measure and
// landing, OpenCode's own snapshot repository).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new folder for GIT_TRACE2_EVENT. */
export const gitTraceFolder = () => mkdtempSync(join(tmpdir(), 'orca-bench-git-trace-'));

export interface GitProcess {
  /** Epoch ms it started; its elapsed wall, ms. */
  at: number;
  ms: number;
  argv: string[];
  /** Its subcommand (`add`, `write-tree`, `reset`…) and the directory kind: OpenCode's snapshot repository (`--git-dir …/opencode/snapshot/…`), or the command's own `cwd` as git reports it. */
  verb: string;
  opencodeSnapshot: boolean;
}

/** The git processes traced in `folder` that started in [from, to) (epoch ms). */
export function gitProcesses(folder: string, from = 0, to = Infinity): GitProcess[] {
  const out: GitProcess[] = [];
  for (const name of readdirSync(folder)) {
    let start: { at: number; argv: string[] } | undefined;
    let exit: number | undefined;
    for (const line of readFileSync(join(folder, name), 'utf8').split('\n')) {
      if (!line) continue;
      let e: { event?: string; time?: string; argv?: string[]; t_abs?: number };
      try {
        e = JSON.parse(line);
      } catch {
        continue;
      }
      if (e.event === 'start' && !start) start = { at: Date.parse(e.time ?? ''), argv: e.argv ?? [] };
      if ((e.event === 'exit' || e.event === 'atexit') && typeof e.t_abs === 'number') exit = Math.max(exit ?? 0, e.t_abs * 1000);
    }
    if (!start || exit === undefined || start.at < from || start.at >= to) continue;
    const args = start.argv.slice(1);
    let i = 0;
    let opencodeSnapshot = false;
    while (i < args.length && args[i]!.startsWith('-')) {
      if (args[i] === '--git-dir' && /opencode[/]snapshot/.test(args[i + 1] ?? '')) opencodeSnapshot = true;
      if (/^--git-dir=.*opencode[/]snapshot/.test(args[i]!)) opencodeSnapshot = true;
      i += ['-c', '-C', '--git-dir', '--work-tree'].includes(args[i]!) ? 2 : 1;
    }
    out.push({ at: start.at, ms: exit, argv: start.argv, verb: args[i] ?? '?', opencodeSnapshot });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Lines: per (who, subcommand) the count, the summed and the median elapsed ms, largest sum first. */
export function gitSummary(procs: GitProcess[], top = 14): string[] {
  const groups = new Map<string, number[]>();
  for (const p of procs) {
    const key = `${p.opencodeSnapshot ? 'opencode snapshot' : 'orca'} ${p.verb}`;
    groups.set(key, [...(groups.get(key) ?? []), p.ms]);
  }
  const total = procs.reduce((s, p) => s + p.ms, 0);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  return [
    `${procs.length} git processes, ${(total / 1000).toFixed(1)} s of their wall summed`,
    ...[...groups]
      .sort((a, b) => b[1].reduce((s, x) => s + x, 0) - a[1].reduce((s, x) => s + x, 0))
      .slice(0, top)
      .map(([key, xs]) => `  ${key.padEnd(28)} ${String(xs.length).padStart(5)} × median ${med(xs).toFixed(0).padStart(5)} ms = ${(xs.reduce((s, x) => s + x, 0) / 1000).toFixed(1).padStart(6)} s`),
  ];
}
