import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { MeasureStepInput } from '../machines/ports.js';
import type { FileChange, StepDiff } from '../machines/types.js';
import { GitError, gitBytes } from './git.js';
import { excludedPaths, snapshotCommit, snapshotTree, userIndexPath, type SnapshotOptions } from './snapshot.js';
import type { GitRepository } from './support.js';
import { writeFileAtomic } from './write-atomic.js';

export interface MeasureOptions extends MeasureStepInput, Pick<SnapshotOptions, 'quietSince'> {
  /** Where the whole patch goes (beside the plan file). */
  patchPath: string;
  /** The workspace include list: left out of the snapshot as it was left out of the base. */
  include: readonly string[];
  signal?: AbortSignal;
}

/** What the step changed so far: its tree now (the worktree, or the user's tree when shared) against its base. */
export async function measure(repo: GitRepository, options: MeasureOptions): Promise<StepDiff> {
  return (await measureWithPatch(repo, options)).diff;
}

/** measure, and the patch it wrote as bytes (merge checks it against the user's tree). */
export async function measureWithPatch(repo: GitRepository, options: MeasureOptions): Promise<{ diff: StepDiff; patch: Buffer }> {
  const { workspace, signal } = options;
  const result = options.result ?? (await capture(repo, options));
  return diffCommits(repo, { base: workspace.base, result, where: workspace.kind, declared: options.declared, patchPath: options.patchPath, ...(signal ? { signal } : {}) });
}

/** The step's tree as it is now, as a commit on its base's history (what measure diffs against the base). */
export async function capture(
  repo: GitRepository,
  { workspace, include, signal, quietSince }: Pick<MeasureOptions, 'workspace' | 'include' | 'signal' | 'quietSince'>,
): Promise<string> {
  const tree = workspace.kind === 'worktree' ? workspace.root : repo.toplevel;
  if (!tree || !existsSync(tree))
    throw new GitError(`The step's worktree ${tree ?? '(none recorded)'} is gone, so its changes cannot be measured: run the step again.`);
  // A slot's own index, or Orca's kept index of the user's tree: git reads only what changed since.
  // A slot's parent is the base it was reset to: no look-up of its HEAD.
  // In the shared tree, a snapshot begun after the step's session was last active holds all it did (quietSince).
  const where = workspace.kind === 'worktree' ? { own: true, parent: workspace.base } : { index: userIndexPath(repo), ...(quietSince !== undefined ? { quietSince } : {}) };
  return snapshotCommit(tree, { exclude: excludedPaths(repo.prefix, include), ...where, ...(signal ? { signal } : {}) });
}

export interface DiffCommitsOptions {
  base: string;
  result: string;
  where: StepDiff['where'];
  declared: readonly string[];
  patchPath: string;
  signal?: AbortSignal;
}

/** The changes base→result as a StepDiff, with the patch written to `patchPath` (null in the diff when it could not be). */
export async function diffCommits(repo: GitRepository, { base, result, where, declared, patchPath, signal }: DiffCommitsOptions): Promise<{ diff: StepDiff; patch: Buffer }> {
  const at = { cwd: repo.toplevel, ...(signal ? { signal } : {}) };
  // One snapshot, or two of one tree, measured the step's start and end (a step that changed nothing): no git to ask.
  const same = base === result || (snapshotTree(base) ?? base) === snapshotTree(result);
  const { listed, patch } = same ? { listed: '', patch: Buffer.alloc(0) } : splitChanges((await gitBytes(['diff-tree', '-r', '-M', '-z', '--raw', '--numstat', '-p', '--binary', '--no-ext-diff', '--no-color', base, result], at)).stdout);
  const files = parseChanges(listed).map((change) => toProject(change, repo.prefix));
  const written = await writeFileAtomic(patchPath, patch).then(
    () => patchPath,
    () => null,
  );
  // A step in the shared tree changed the user's tree itself: what it changed is what landed there.
  const landed = where === 'shared' ? { landed: { at: new Date().toISOString(), patch_path: written } } : {};
  return {
    diff: { files, undeclared: undeclaredPaths(files, declared), patch_path: written, base, result, where, ...landed },
    patch,
  };
}

/**
 * `diff-tree -z --raw --numstat -p` in one: its records (see parseChanges), an empty one, then the
 * patch, byte for byte what `diff-tree -p` alone writes. No record is empty before it (a rename's
 * numstat record ends in a tab, not a NUL), so the first two NULs in a row end the records.
 */
export function splitChanges(output: Buffer): { listed: string; patch: Buffer } {
  const end = output.indexOf('\0\0');
  return end < 0 ? { listed: output.toString('utf8'), patch: Buffer.alloc(0) } : { listed: output.subarray(0, end + 1).toString('utf8'), patch: output.subarray(end + 2) };
}

const STATUS: Record<string, FileChange['status']> = { A: 'added', D: 'deleted', R: 'renamed', M: 'modified', T: 'modified' };

/**
 * `diff-tree -z --raw --numstat`: first one raw record per file (`:modes oids status`, path, and
 * the new path for a rename), then one numstat record per file in the same order (`added\tremoved\tpath`,
 * or `added\tremoved\t` then both paths for a rename; `-` for a binary file).
 */
export function parseChanges(output: string): FileChange[] {
  const fields = output.split('\0');
  const raw: Omit<FileChange, 'added' | 'removed'>[] = [];
  const counts: [number | null, number | null][] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.startsWith(':')) {
      const code = field.split(' ').at(-1) ?? '';
      const status = STATUS[code[0] ?? ''] ?? 'modified';
      if (status === 'renamed') raw.push({ path: fields[i + 2]!, status, from: fields[i + 1]! });
      else raw.push({ path: fields[i + 1]!, status });
      i += status === 'renamed' ? 2 : 1;
    } else if (/^(\d+|-)\t(\d+|-)\t/.test(field)) {
      const [added, removed, path] = field.split('\t');
      counts.push([added === '-' ? null : Number(added), removed === '-' ? null : Number(removed)]);
      i += path === '' ? 2 : 0;
    }
  }
  return raw.map((change, index) => ({ ...change, added: counts[index]?.[0] ?? null, removed: counts[index]?.[1] ?? null }));
}

/** Repository-relative to project-relative: `app/src/a.ts` with prefix `app/` is `src/a.ts`; outside the project, `../lib/b.ts`. */
export function projectRelative(path: string, prefix: string): string {
  if (!prefix) return path;
  return path.startsWith(prefix) ? path.slice(prefix.length) : posix.relative(prefix, path);
}

/** A change's paths made project-relative (projectRelative). */
export function toProject(change: FileChange, prefix: string): FileChange {
  return { ...change, path: projectRelative(change.path, prefix), ...(change.from !== undefined ? { from: projectRelative(change.from, prefix) } : {}) };
}

/**
 * Changed paths (both ends of a rename) that no declared entry covers. An entry is a path, a
 * folder (`src/` or `src`), or a glob (`*` within a name, `**` across folders). Nothing is
 * flagged when the step declared nothing.
 */
export function undeclaredPaths(files: readonly FileChange[], declared: readonly string[]): string[] {
  if (declared.length === 0) return [];
  const covers = declared.map(matcher);
  const paths = files.flatMap((file) => (file.from !== undefined ? [file.from, file.path] : [file.path]));
  return [...new Set(paths)].filter((path) => !covers.some((covered) => covered(path)));
}

function matcher(entry: string): (path: string) => boolean {
  const normal = posix.normalize(entry.trim().replace(/^\.\//, '')).replace(/\/+$/, '');
  if (!/[*?]/.test(normal)) return (path) => path === normal || path.startsWith(`${normal}/`);
  const source = normal
    .split(/(\*\*\/|\*\*|\*|\?)/)
    .map((part) => GLOB[part] ?? escape(part))
    .join('');
  const pattern = new RegExp(`^${source}(?:/.*)?$`);
  return (path) => pattern.test(path);
}

// A glob's wildcards as regular expressions: `**/` any folders (or none), `*` and `?` within one name.
const GLOB: Record<string, string> = { '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' };
const escape = (text: string) => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');
