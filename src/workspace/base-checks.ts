import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import { git } from './git.js';
import { snapshotTree } from './snapshot.js';
import type { GitRepository } from './support.js';
import { writeFileAtomic } from './write-atomic.js';

/**
 * The project's configured checks (`verification.commands`) run on a tree of the project as it was,
 * in a worktree slot, never in the user's tree (docs/design.md, "Isolation and merge"): what fails
 * before a plan is not the plan's. A result is kept per tree and command, in memory and on disk
 * beside the slots, so a tree is checked once: while the planner drafts (the plan's base, as a rule),
 * and at most once more when the verification fails on a base nothing checked before.
 */

/** One command's run on a tree: passed (exit 0), and what it said. */
export interface BaseCheckResult {
  command: string;
  passed: boolean;
  output: string;
}

/** A slot reset to a commit, for a run: its folder matching the project directory, and how to give it back. */
export interface SlotAt {
  dir: string;
  release(): Promise<void>;
}

export interface BaseChecksOptions {
  repo: GitRepository;
  /** The project directory: a slot's folder in the output reads as it, so two runs' words compare. */
  directory: string;
  /** A slot reset to `commit` (claimed for `planId`), given back by `release`. */
  openSlotAt(commit: string, planId: string, signal: AbortSignal): Promise<SlotAt>;
  /** Runs the commands one after another in `cwd`, each a check (the verification's own runner). */
  run(commands: readonly string[], cwd: string, signal: AbortSignal): Promise<BaseCheckResult[]>;
  log(level: 'info' | 'warn', message: string): void;
}

export interface BaseChecks {
  /** Each command's result on `commit`'s tree: kept from an earlier run, joined to one under way, or run now in a slot. */
  of(commit: string, commands: readonly string[], planId: string, signal: AbortSignal): Promise<BaseCheckResult[]>;
}

export function createBaseChecks({ repo, directory, openSlotAt, run, log }: BaseChecksOptions): BaseChecks {
  const folder = join(repo.worktrees, 'base-checks');
  /** Runs under way or ended in this process, per tree and command. */
  const known = new Map<string, Promise<BaseCheckResult | null>>();

  const treeOf = async (commit: string, signal: AbortSignal) =>
    snapshotTree(commit) ?? (await git(['rev-parse', `${commit}^{tree}`], { cwd: repo.toplevel, signal })).stdout.trim();
  const keyOf = (tree: string, command: string) => `${tree}-${createHash('sha1').update(command).digest('hex').slice(0, 12)}`;
  const fileOf = (key: string) => join(folder, `${key}.json`);

  const fromDisk = async (key: string, command: string): Promise<BaseCheckResult | null> => {
    const text = await readFile(fileOf(key), 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const result = JSON.parse(text) as BaseCheckResult;
      if (result.command === command && typeof result.passed === 'boolean' && typeof result.output === 'string') return result;
    } catch {
      // Written whole by rename: damaged outside Orca. Run again.
    }
    return null;
  };

  return {
    async of(commit, commands, planId, signal) {
      if (commands.length === 0) return [];
      const tree = await treeOf(commit, signal);
      const keys = commands.map((command) => keyOf(tree, command));
      // Each command not asked for yet in this process is claimed at once, so two asks at the same time run it once.
      const fresh: Array<{ command: string; key: string; settle: (result: Promise<BaseCheckResult | null>) => void }> = [];
      commands.forEach((command, i) => {
        const key = keys[i]!;
        if (known.has(key)) return;
        let settle!: (result: Promise<BaseCheckResult | null>) => void;
        const result = new Promise<BaseCheckResult | null>((resolve) => (settle = resolve));
        known.set(key, result);
        // A run that failed (aborted, no slot) is forgotten: the next ask runs it again.
        result.then((r) => r ?? known.delete(key), () => known.delete(key));
        fresh.push({ command, key, settle });
      });
      if (fresh.length > 0) {
        // What a run of an earlier process left, else a run now.
        const onDisk = await Promise.all(fresh.map((f) => fromDisk(f.key, f.command)));
        const missing = fresh.filter((f, i) => {
          if (onDisk[i]) f.settle(Promise.resolve(onDisk[i]!));
          return !onDisk[i];
        });
        if (missing.length > 0) {
          const running = runInSlot(commit, missing.map((f) => f.command), planId, signal);
          for (const f of missing) f.settle(running.then((results) => results.find((r) => r.command === f.command) ?? null));
        }
      }
      const results = await Promise.all(keys.map((key) => known.get(key) ?? Promise.resolve(null)));
      return results.filter((r): r is BaseCheckResult => r !== null);
    },
  };

  async function runInSlot(commit: string, commands: string[], planId: string, signal: AbortSignal): Promise<BaseCheckResult[]> {
    const started = performance.now();
    const slot = await openSlotAt(commit, planId, signal);
    try {
      const results = (await run(commands, slot.dir, signal)).map((r) => ({ ...r, output: r.output.replaceAll(slot.dir, directory) }));
      await mkdir(folder, { recursive: true });
      const tree = await treeOf(commit, signal);
      await Promise.all(results.map((r) => writeFileAtomic(fileOf(keyOf(tree, r.command)), JSON.stringify(r)).catch((error: unknown) => log('warn', `Could not keep the result of ${JSON.stringify(r.command)} on the plan's base: ${errorMessage(error)}.`))));
      log('info', `plan ${planId}: the configured checks ran on ${commit.slice(0, 12)} in ${((performance.now() - started) / 1000).toFixed(1)} s: ${results.map((r) => `${r.command} ${r.passed ? 'passed' : 'failed'}`).join(', ')}`);
      return results;
    } finally {
      await slot.release().catch((error: unknown) => log('warn', `The slot of the checks on the plan's base could not be given back: ${errorMessage(error)}.`));
    }
  }
}
