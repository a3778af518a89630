import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, readlink, rename, rm, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { RewindCheck, RewindClash, RewindPatch } from '../machines/rewind.machine.js';
import { OrcaError } from '../errors.js';
import { parseChanges, toProject } from './diff.js';
import { git, gitBytes, type GitOptions } from './git.js';
import { excludedPaths, snapshotCommit, userIndexPath } from './snapshot.js';
import type { GitRepository } from './support.js';
import { writeFileAtomic } from './write-atomic.js';

/**
 * Taking landed patches back out of the user's working tree (the rewind chart's ports): whether they
 * apply in reverse to the tree as it is now, checked in an index of Orca's (the user's index, HEAD
 * and branches are never touched), and the change made file by file, each file whole, after an
 * intent beside the plan says what every file was and becomes. A crash leaves each file as before
 * or as after; the next start finds the intent and puts every file back as before (or, when all
 * were done, keeps it): never between.
 */

export class RewindRaceError extends OrcaError {
  override name = 'RewindRaceError';
}

/** What taking `patches` back, in order, does to the user's tree now; each hunk that does not apply is a clash. */
export async function checkRewind(repo: GitRepository, patches: readonly RewindPatch[], { include, signal }: { include: readonly string[]; signal?: AbortSignal }): Promise<RewindCheck> {
  const fromCommit = await snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, include), index: userIndexPath(repo), ...(signal ? { signal } : {}) });
  const temp = await mkdtemp(join(tmpdir(), 'orca-rewind-'));
  const at: GitOptions = { cwd: repo.toplevel, env: { GIT_INDEX_FILE: join(temp, 'index') }, ...(signal ? { signal } : {}) };
  try {
    const from = (await git(['rev-parse', `${fromCommit}^{tree}`], at)).stdout.trim();
    await git(['read-tree', from], at);
    const clashes: RewindClash[] = [];
    for (const patch of patches) {
      const bytes = await readFile(patch.path).catch(() => null);
      if (bytes === null) {
        clashes.push({ step: patch.step, path: '', line: null, detail: `its patch ${patch.path} is gone` });
        continue;
      }
      if (bytes.length === 0) continue;
      const taken = await gitBytes(['apply', '--cached', '-R', '--whitespace=nowarn', '-'], { ...at, input: bytes, okCodes: [0, 1] });
      if (taken.code !== 0) clashes.push(...(await clashesOf(repo, patch.step, bytes, at)));
    }
    if (clashes.length > 0) return { from, to: from, files: [], clashes };
    const to = (await git(['write-tree'], at)).stdout.trim();
    const listed = to === from ? '' : (await git(['diff-tree', '-r', '-z', '--raw', '--numstat', '--no-renames', from, to], at)).stdout;
    return { from, to, files: parseChanges(listed).map((change) => toProject(change, repo.prefix)), clashes: [] };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** The patch from the tree `from` to the tree `to`: what a rewind did, kept so a redo can take it back. */
export async function rewindPatch(repo: GitRepository, check: Pick<RewindCheck, 'from' | 'to'>): Promise<Buffer> {
  return (await gitBytes(['diff-tree', '-p', '--binary', '--no-renames', '--no-ext-diff', '--no-color', check.from, check.to], { cwd: repo.toplevel })).stdout;
}

/**
 * Each file section of a patch that does not apply in reverse, and in it each hunk that does not:
 * the file and the line (where the lines it landed are in the file now). One that has no hunk (a
 * binary file, a file deleted since) is said with git's words.
 */
async function clashesOf(repo: GitRepository, step: string, patch: Buffer, at: GitOptions): Promise<RewindClash[]> {
  const check = async (bytes: Buffer) => gitBytes(['apply', '--cached', '-R', '--check', '--whitespace=nowarn', '-'], { ...at, input: bytes, okCodes: [0, 1] });
  const words = (stderr: string) => stderr.split('\n').find((line) => line.startsWith('error:'))?.replace(/^error: /, '') ?? stderr.trim();
  const clashes: RewindClash[] = [];
  for (const section of fileSections(patch.toString('latin1'))) {
    const whole = await check(Buffer.from(section.text, 'latin1'));
    if (whole.code === 0) continue;
    const path = section.path ? projectPath(repo, section.path) : '';
    const failing = [];
    for (const hunk of section.hunks) {
      const one = await check(Buffer.from(section.header + hunk.text, 'latin1'));
      if (one.code !== 0) failing.push({ step, path, line: hunk.landedAt, detail: words(one.stderr) });
    }
    clashes.push(...(failing.length > 0 ? failing : [{ step, path, line: null, detail: words(whole.stderr) }]));
  }
  return clashes;
}

const projectPath = (repo: GitRepository, path: string) => (repo.prefix && path.startsWith(repo.prefix) ? path.slice(repo.prefix.length) : repo.prefix ? relative(repo.prefix, path) : path);

interface FileSection {
  /** Its `diff --git` line and headers, up to its first hunk. */
  header: string;
  text: string;
  /** The path as it is after the patch (`b/…`). */
  path: string | null;
  hunks: Array<{ text: string; landedAt: number | null }>;
}

/** A patch (latin1: one character per byte) cut into its files, each into its hunks. */
export function fileSections(patch: string): FileSection[] {
  const starts = [...patch.matchAll(/^diff --git /gm)].map((m) => m.index);
  return starts.map((start, i) => {
    const text = patch.slice(start, starts[i + 1] ?? patch.length);
    const hunkStarts = [...text.matchAll(/^@@ /gm)].map((m) => m.index);
    const header = text.slice(0, hunkStarts[0] ?? text.length);
    const hunks = hunkStarts.map((h, j) => {
      const hunk = text.slice(h, hunkStarts[j + 1] ?? text.length);
      const found = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(hunk);
      return { text: hunk, landedAt: found ? Number(found[1]) : null };
    });
    return { header, text, path: pathAfter(header), hunks };
  });
}

/** The path after the patch: `+++ b/…`, else `--- a/…` (a deletion), else the `diff --git` line (a binary file); as UTF-8. */
function pathAfter(header: string): string | null {
  const plus = /^\+\+\+ (.+)$/m.exec(header)?.[1];
  const minus = /^--- (.+)$/m.exec(header)?.[1];
  const named = plus && plus !== '/dev/null' ? plus : minus && minus !== '/dev/null' ? minus : /^diff --git a\/\S+ (b\/\S+)$/m.exec(header)?.[1];
  if (!named) return null;
  return Buffer.from(unquoteC(named), 'latin1').toString('utf8').replace(/^[ab]\//, '');
}

/** git's C-style quoting of an unusual path (`"a\303\251.txt"`: octal bytes, \n, \t, \", \\), in latin1 (a character per byte). */
function unquoteC(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"')) return text;
  const escapes: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', r: '\r', v: '\v' };
  return text.slice(1, -1).replace(/\\([0-7]{3}|.)/g, (_, code: string) => (code.length === 3 ? String.fromCharCode(parseInt(code, 8)) : (escapes[code] ?? code)));
}

/** A file as git sees it: its mode and blob, or absent. */
export interface FileState {
  mode: string;
  blob: string;
}

/** What a rewind writes, file by file, recorded before it writes (the intent); `record`, what the caller records once it is done. */
export interface RewindIntent<Record = unknown> {
  plan_id: string;
  direction: 'undo' | 'redo';
  steps: string[];
  record: Record;
  from: string;
  to: string;
  /** Repository-relative. */
  files: Array<{ path: string; before: FileState | null; after: FileState | null }>;
}

/**
 * Changes the user's tree from `check.from` to `check.to`, file by file, each whole (a temporary file
 * renamed over it), once the intent is on disk; refuses, changing nothing, when a file is no longer as
 * the check found it. The caller records the rewind, then removes the intent (finishRewind).
 */
export async function applyRewind<Record>(
  repo: GitRepository,
  intentPath: string,
  meta: Pick<RewindIntent<Record>, 'plan_id' | 'direction' | 'steps' | 'record'>,
  check: Pick<RewindCheck, 'from' | 'to'>,
): Promise<RewindIntent<Record>> {
  const intent: RewindIntent<Record> = { ...meta, from: check.from, to: check.to, files: await changedFiles(repo, check.from, check.to) };
  for (const file of intent.files) {
    if (!sameState(await stateOf(repo, file.path), file.before)) throw new RewindRaceError(`${projectPath(repo, file.path)} changed while it was being taken back: nothing was changed; run it again.`);
  }
  await writeFileAtomic(intentPath, JSON.stringify(intent));
  for (const file of intent.files) await writeState(repo, file.path, file.after);
  return intent;
}

/** The rewind is recorded: its intent goes. */
export const finishRewind = (intentPath: string) => rm(intentPath, { force: true });

/**
 * A rewind a crash cut short (its intent still there): every file as after it means it was done
 * (`completed`: the caller records it); otherwise each file it had written is put back as before
 * (`rolled_back`). A file that is neither (changed since by someone) is left as it is and named.
 */
export async function recoverRewind(repo: GitRepository, intent: Pick<RewindIntent, 'files'>): Promise<{ outcome: 'completed' | 'rolled_back'; left: string[] }> {
  const states = await Promise.all(intent.files.map(async (file) => ({ file, now: await stateOf(repo, file.path) })));
  if (states.every(({ file, now }) => sameState(now, file.after))) return { outcome: 'completed', left: [] };
  const left: string[] = [];
  for (const { file, now } of states) {
    if (sameState(now, file.before)) continue;
    if (sameState(now, file.after)) await writeState(repo, file.path, file.before);
    else left.push(projectPath(repo, file.path));
  }
  return { outcome: 'rolled_back', left };
}

export async function readIntent<Record>(path: string): Promise<RewindIntent<Record> | null> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return JSON.parse(text) as RewindIntent<Record>;
  } catch {
    // Written whole by rename: an intent that does not parse was never complete, so nothing was written after it.
    return null;
  }
}

/** `diff-tree --raw` between two trees: each file's mode and blob before and after (000000: absent). */
async function changedFiles(repo: GitRepository, from: string, to: string): Promise<RewindIntent['files']> {
  const { stdout } = await git(['diff-tree', '-r', '-z', '--raw', '--no-renames', from, to], { cwd: repo.toplevel });
  const fields = stdout.split('\0');
  const files: RewindIntent['files'] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [modeBefore, modeAfter, blobBefore, blobAfter] = fields[i]!.replace(/^:/, '').split(' ');
    const state = (mode: string | undefined, blob: string | undefined) => (mode && blob && !/^0+$/.test(mode) ? { mode, blob } : null);
    files.push({ path: fields[i + 1]!, before: state(modeBefore, blobBefore), after: state(modeAfter, blobAfter) });
  }
  return files;
}

const sameState = (a: FileState | null, b: FileState | null) => (a === null || b === null ? a === b : a.mode === b.mode && a.blob === b.blob);

/** A file of the user's tree as git would record it (its filters applied), or null when absent. */
async function stateOf(repo: GitRepository, path: string): Promise<FileState | null> {
  const full = join(repo.toplevel, path);
  const stat = await lstat(full).catch(() => null);
  if (!stat || stat.isDirectory()) return null;
  if (stat.isSymbolicLink()) {
    const target = await readlink(full);
    return { mode: '120000', blob: (await git(['hash-object', '--no-filters', '--stdin'], { cwd: repo.toplevel, input: target })).stdout.trim() };
  }
  const mode = stat.mode & 0o111 ? '100755' : '100644';
  return { mode, blob: (await git(['hash-object', `--path=${path}`, '--', path], { cwd: repo.toplevel })).stdout.trim() };
}

/** Puts one file of the user's tree in a state, whole: written beside it and renamed over it, or removed (and its emptied folders). */
async function writeState(repo: GitRepository, path: string, state: FileState | null): Promise<void> {
  const full = join(repo.toplevel, path);
  if (state === null) {
    await unlink(full).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await removeEmptyFolders(repo.toplevel, dirname(full));
    return;
  }
  if (state.mode === '160000') throw new OrcaError(`${path} is a submodule: Orca does not rewind submodules.`);
  await mkdir(dirname(full), { recursive: true });
  const temp = `${full}.orca-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    if (state.mode === '120000') {
      const target = (await gitBytes(['cat-file', 'blob', state.blob], { cwd: repo.toplevel })).stdout.toString('utf8');
      await symlink(target, temp);
    } else {
      // Smudge filters applied, as a checkout would write it.
      const content = (await gitBytes(['cat-file', '--filters', `--path=${path}`, state.blob], { cwd: repo.toplevel })).stdout;
      await writeFile(temp, content, { mode: state.mode === '100755' ? 0o755 : 0o644 });
    }
    await rename(temp, full);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function removeEmptyFolders(top: string, folder: string): Promise<void> {
  for (let dir = folder; dir.startsWith(top) && dir !== top; dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty, or gone
    }
  }
}
