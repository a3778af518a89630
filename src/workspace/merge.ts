import { existsSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import type { MergeStepInput } from '../machines/ports.js';
import type { LandedChange, MergeConflict, MergeOutcome, StepDiff } from '../machines/types.js';
import { errorMessage, OrcaError } from '../errors.js';
import { measureWithPatch, parseChanges, projectRelative, splitChanges, toProject } from './diff.js';
import { git, GitError, gitBytes } from './git.js';
import { excludedPaths, snapshotCommit, userIndexPath } from './snapshot.js';
import type { GitRepository } from './support.js';
import { mergedFile, releaseSlot } from './worktrees.js';
import { writeFileAtomic } from './write-atomic.js';

export interface MergeOptions extends MergeStepInput {
  /** Where the step's whole patch goes (beside the plan file). */
  patchPath: string;
  /** The workspace include list: never part of what lands. */
  include: readonly string[];
  signal?: AbortSignal;
  /** Where a slot that could not be given back is reported: the merge itself succeeded. */
  log?: (level: 'warn', message: string) => void;
}

/** Conflict regions kept per file, and lines kept per region: enough for a human to see the clash. */
const MAX_REGIONS = 5;
const MAX_REGION_LINES = 40;

/**
 * Lands a worktree step's changes in the user's working tree as uncommitted changes (no commit,
 * no branch move, the index untouched). When the step's patch applies as it is (the files it touches
 * are as the step found them), git applies it, reading only those files; otherwise by a three-way
 * merge whose base is the tree the step started from, so the user's own edits since then stay.
 * Exactly once, even when a crash cut a previous call short at any point: a record says it landed,
 * and before it is written (a mark beside it says a landing began) a patch that applies in reverse
 * says so too; with no such mark, nothing was applied and that check is not paid. A clash leaves the user's
 * tree as it is. Once landed, the step's slot goes back to the pool.
 */
export async function mergeStep(repo: GitRepository, options: MergeOptions): Promise<MergeOutcome> {
  const { workspace, signal, planId, stepId, attempt } = options;
  const root = workspace.root;
  if (workspace.kind !== 'worktree' || !root) throw new OrcaError(`Only a step in its own worktree can be merged; this one worked in ${workspace.dir}.`);
  const at = { cwd: repo.toplevel, ...(signal ? { signal } : {}) };
  const record = mergedFile(repo, planId, stepId, attempt);

  const landed = await readFile(record, 'utf8').then((text) => JSON.parse(text) as StepDiff, () => null);
  if (landed) return done(repo, options, landed);

  const { diff, patch } = await stepChanges(repo, options);
  const asIs = { patch_path: diff.patch_path };
  if (diff.files.length === 0) return land(repo, options, record, diff, asIs);
  // A landing begun before a crash may have applied the patch already (its own, or a merge's written
  // beside it before it was applied): it applies in reverse then.
  const begun = landingFile(record);
  const mergedPath = landedPatchPath(options.patchPath);
  if (existsSync(begun)) {
    const merged = await readFile(mergedPath).catch(() => null);
    if (merged && merged.length > 0 && (await appliesInReverse(repo, merged))) return land(repo, options, record, diff, { patch_path: mergedPath });
    if (await appliesInReverse(repo, patch)) return land(repo, options, record, diff, asIs);
  }
  await writeFileAtomic(begun, '');
  if (await applied(repo, patch)) return land(repo, options, record, diff, asIs);

  const ours = await snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, options.include), index: userIndexPath(repo), ...(signal ? { signal } : {}) });
  // Both sides as children of the base, so the base is their merge base (git 2.39 has no --merge-base).
  const onBase = async (commit: string) => (await git(['commit-tree', `${commit}^{tree}`, '-p', diff.base, '-m', 'Orca: merge side'], at)).stdout.trim();
  const [yours, step] = await Promise.all([onBase(ours), onBase(diff.result)]);
  const merged = await git(['merge-tree', '--write-tree', '--name-only', '--messages', '-z', yours, step], { ...at, okCodes: [0, 1] });
  // git names each side by its commit id, in its messages and conflict markers: say whose it is.
  const names = { [yours]: 'your working tree', [step]: `step ${stepId}` };
  const result = parseMergeTree(merged.stdout, names);

  if (merged.code === 1) return clash(begun, { type: 'conflict', diff, conflicts: await conflictsOf(repo, result, names, signal) });

  const { listed, patch: changes } = splitChanges((await gitBytes(['diff-tree', '-r', '-M', '-z', '--raw', '--numstat', '-p', '--binary', '--no-ext-diff', '--no-color', `${yours}^{tree}`, result.tree], at)).stdout);
  if (changes.length > 0) {
    // What lands is the merge's result, not the step's own patch: kept before it is applied (a crash between is found by it).
    await writeFileAtomic(mergedPath, changes);
    try {
      // No signal: a git apply stopped halfway leaves half a change (a later call would still finish it).
      await git(['apply', '--whitespace=nowarn', '-'], { cwd: repo.toplevel, input: changes });
    } catch (error) {
      if (!(error instanceof GitError) || error.exitCode === null) throw error;
      await unlink(mergedPath).catch(() => {});
      return clash(begun, { type: 'conflict', diff, conflicts: [], error: `The merged changes did not apply to your working tree (did it change meanwhile?): ${error.stderr.trim() || error.message}` });
    }
  }
  const files = parseChanges(listed).map((change) => toProject(change, repo.prefix));
  return land(repo, options, record, diff, changes.length > 0 ? { patch_path: mergedPath, files } : { patch_path: null, files: [] });
}

/** Where a merge's result is kept when it is what landed: beside the step's own patch. */
export const landedPatchPath = (patchPath: string) => patchPath.replace(/(\.patch)?$/, '.landed.patch');

/**
 * What the step changed: as measured after its last turn when the chart passes that measurement
 * (then what lands is exactly what was reviewed), else measured now.
 */
async function stepChanges(repo: GitRepository, options: MergeOptions): Promise<{ diff: StepDiff; patch: Buffer }> {
  const measured = options.measured;
  if (measured?.patch_path && existsSync(options.workspace.root ?? '')) {
    const patch = await readFile(measured.patch_path).catch(() => null);
    if (patch) return { diff: measured, patch };
  }
  if (!existsSync(options.workspace.root ?? '')) throw new GitError(`The step's worktree ${options.workspace.root} is gone and nothing records its changes as landed: run the step again.`);
  return measureWithPatch(repo, options);
}

/** The step's patch is already in the user's tree when it applies there in reverse. */
async function appliesInReverse(repo: GitRepository, patch: Buffer): Promise<boolean> {
  const check = await git(['apply', '--check', '-R', '--whitespace=nowarn', '-'], { cwd: repo.toplevel, input: patch, okCodes: [0, 1] });
  return check.code === 0;
}

/**
 * Applies the step's patch as it is, when it does: only the files it touches are read. git applies
 * all of a patch or none of it (no `--reject`), so a patch that does not apply leaves the tree as it was.
 */
async function applied(repo: GitRepository, patch: Buffer): Promise<boolean> {
  // No signal: a git apply stopped halfway leaves half a change.
  const applying = await git(['apply', '--whitespace=nowarn', '-'], { cwd: repo.toplevel, input: patch, okCodes: [0, 1] });
  return applying.code === 0;
}

/** Beside the landing record while a landing is under way: after a crash, the patch may be in the user's tree already. */
const landingFile = (record: string) => `${record}.landing`;

/** Nothing landed: no landing is under way any more. */
async function clash(begun: string, outcome: MergeOutcome): Promise<MergeOutcome> {
  await unlink(begun).catch(() => {});
  return outcome;
}

/** Records the landing, with what landed and when (the record outlives the slot's use), then frees the slot. */
async function land(repo: GitRepository, options: MergeOptions, record: string, measured: StepDiff, landed: Omit<LandedChange, 'at'>): Promise<MergeOutcome> {
  const diff: StepDiff = { ...measured, landed: { at: new Date().toISOString(), ...landed } };
  await writeFileAtomic(record, JSON.stringify(diff));
  await unlink(landingFile(record)).catch(() => {});
  return done(repo, options, diff);
}

async function done(repo: GitRepository, options: MergeOptions, diff: StepDiff): Promise<MergeOutcome> {
  const root = options.workspace.root!;
  await releaseSlot(repo, root, options.planId, options.stepId).catch((error: unknown) =>
    options.log?.('warn', `The step's changes landed, but its worktree ${root} could not be given back to the pool: ${errorMessage(error)}.`),
  );
  return { type: 'merged', diff };
}

export interface MergeTree {
  tree: string;
  /** Repository-relative paths with a conflict. */
  conflicted: string[];
  /** git's CONFLICT messages by path. */
  messages: Map<string, string[]>;
}

/**
 * `merge-tree --write-tree --name-only --messages -z` (git 2.39): the tree, NUL; each conflicted
 * path, NUL; an empty field; then per message the number of paths, the paths, its type and its
 * text, each NUL-ended. `names` replaces commit ids in the messages with words.
 */
export function parseMergeTree(output: string, names: Record<string, string> = {}): MergeTree {
  const fields = output.split('\0');
  const tree = fields[0] ?? '';
  let i = 1;
  const conflicted: string[] = [];
  while (i < fields.length && fields[i] !== '') conflicted.push(fields[i++]!);
  i++;
  const messages = new Map<string, string[]>();
  while (i < fields.length - 1) {
    const count = Number(fields[i++]);
    if (!Number.isInteger(count)) break;
    const paths = fields.slice(i, i + count);
    i += count;
    const type = fields[i++] ?? '';
    const text = rename((fields[i++] ?? '').trim(), names);
    if (!type.startsWith('CONFLICT')) continue;
    for (const path of paths) messages.set(path, [...(messages.get(path) ?? []), text]);
  }
  return { tree, conflicted, messages };
}

const rename = (text: string, names: Record<string, string>) => Object.entries(names).reduce((named, [id, name]) => named.replaceAll(id, name), text);

/** Each conflicted file's regions with markers, or git's message when it has none (binary, modify/delete). */
async function conflictsOf(repo: GitRepository, merge: MergeTree, names: Record<string, string>, signal: AbortSignal | undefined): Promise<MergeConflict[]> {
  const contents = await readBlobs(repo, merge.tree, merge.conflicted, signal);
  return merge.conflicted.map((path) => {
    const regions = conflictRegions(contents.get(path)?.toString('utf8') ?? '').map((region) => rename(region, names));
    return { path: projectRelative(path, repo.prefix), hunks: regions.length > 0 ? regions : (merge.messages.get(path) ?? []) };
  });
}

/** `<tree>:<path>` of each path in one `cat-file --batch`; a path git cannot name on one line is left out. */
async function readBlobs(repo: GitRepository, tree: string, paths: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, Buffer>> {
  const named = paths.filter((path) => !path.includes('\n'));
  const blobs = new Map<string, Buffer>();
  if (named.length === 0) return blobs;
  const input = named.map((path) => `${tree}:${path}\n`).join('');
  const { stdout } = await gitBytes(['cat-file', '--batch'], { cwd: repo.toplevel, input, ...(signal ? { signal } : {}) });
  let at = 0;
  for (const path of named) {
    const end = stdout.indexOf(0x0a, at);
    if (end < 0) break;
    const header = stdout.subarray(at, end).toString('utf8');
    at = end + 1;
    const [, type, size] = header.split(' ');
    // `<name> missing`: deleted on one side.
    if (type === 'missing' || size === undefined) continue;
    if (type === 'blob') blobs.set(path, stdout.subarray(at, at + Number(size)));
    at += Number(size) + 1;
  }
  return blobs;
}

/** The `<<<<<<<` … `>>>>>>>` regions of a file, at most MAX_REGIONS, each cut to MAX_REGION_LINES. */
export function conflictRegions(text: string): string[] {
  const lines = text.split('\n');
  const regions: string[] = [];
  let start = -1;
  for (let i = 0; i < lines.length && regions.length < MAX_REGIONS; i++) {
    const line = lines[i]!;
    if (line.startsWith('<<<<<<<')) start = i;
    else if (start >= 0 && line.startsWith('>>>>>>>')) {
      regions.push(cut(lines.slice(start, i + 1)).join('\n'));
      start = -1;
    }
  }
  return regions;
}

/** The first and last lines of a long region, so both markers stay. */
function cut(lines: string[]): string[] {
  if (lines.length <= MAX_REGION_LINES) return lines;
  const head = Math.floor(MAX_REGION_LINES / 2);
  const tail = MAX_REGION_LINES - head - 1;
  return [...lines.slice(0, head), `[… ${lines.length - head - tail} lines cut]`, ...lines.slice(-tail)];
}
