import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { git, GitError } from './git.js';

/** The git repository holding a project directory, as Orca's worktrees need it. */
export interface GitRepository {
  /** The root of the user's working tree. */
  toplevel: string;
  /** The project directory inside it, as git says it: '' at the root, else `sub/dir/`. */
  prefix: string;
  /** The git directory every worktree of the repository shares (absolute). */
  commonDir: string;
  /** The folder of this repository's step worktrees: `<data home>/opencode-orca/worktrees/<sha1 of commonDir, 12 chars>`. */
  worktrees: string;
}

/**
 * Whether each step may get its own worktree. When not, `reason` says why in one line, and
 * `repository` is there when git can still measure a step's changes in the project directory.
 */
export type WorkspaceSupport = ({ ok: true } & GitRepository) | { ok: false; reason: string; repository?: GitRepository };

/** `merge-tree --write-tree` (2.38); `--path-format` (2.31) and `worktree list -z` (2.36) are older. */
const MIN_GIT: readonly [number, number] = [2, 38];

export interface SupportOptions {
  /** Where Orca keeps data outside projects; `$XDG_DATA_HOME`, else `~/.local/share`. */
  dataHome?: string;
  signal?: AbortSignal;
}

/**
 * Worktrees live outside the repository's `.git`: tools skip any path with a `/.git/` segment
 * (jest-haste-map's VCS_DIRECTORIES pattern is matched against absolute paths, so Jest would find
 * no test in such a worktree).
 */
export async function workspaceSupport(directory: string, { dataHome = defaultDataHome(), signal }: SupportOptions = {}): Promise<WorkspaceSupport> {
  const refuse = (reason: string, repository?: GitRepository): WorkspaceSupport => ({ ok: false, reason, ...(repository ? { repository } : {}) });

  let version: string;
  try {
    version = await gitVersion(directory, signal);
  } catch (error) {
    if (error instanceof GitError) return refuse(error.message);
    throw error;
  }
  const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  if (major < MIN_GIT[0] || (major === MIN_GIT[0] && minor < MIN_GIT[1]))
    return refuse(`git ${major}.${minor} is too old for step worktrees: they need git ${MIN_GIT.join('.')} or later.`);

  const at = { cwd: directory, okCodes: [0, 128], ...(signal ? { signal } : {}) };
  const found = await git(['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel', '--show-prefix'], at);
  if (found.code !== 0) {
    // Only now ask why: outside a working tree `--show-toplevel` fails.
    const where = await git(['rev-parse', '--is-bare-repository', '--is-inside-work-tree'], at);
    if (where.code !== 0) return refuse(`${directory} is not in a git repository.`);
    if (where.stdout.startsWith('true')) return refuse(`${directory} is in a bare git repository, which has no working tree.`);
    return refuse(`${directory} is inside a git directory, not in a working tree.`);
  }
  const [commonDir = '', toplevel = '', prefix = ''] = found.stdout.split('\n');
  const repository: GitRepository = { toplevel, prefix, commonDir, worktrees: worktreesFolder(dataHome, commonDir) };

  // A project folder the enclosing repository ignores (a scratch folder, a home directory kept in git
  // with `*` ignored): git carries none of its files, so neither a worktree nor a measured diff can hold them.
  if (prefix && (await ignoredFolder(toplevel, prefix, signal)))
    return refuse(`the project folder ${prefix.replace(/\/$/, '')} is ignored by the git repository at ${toplevel}, so git carries none of its files.`);

  const submodules = await submodulePaths(toplevel, signal);
  if (submodules.length > 0) {
    const named = submodules.slice(0, 3).join(', ') + (submodules.length > 3 ? ', …' : '');
    return refuse(
      `the repository has submodules (${named}): a step's worktree would hold them empty and drop the changes made inside them.`,
      repository,
    );
  }
  return { ok: true, ...repository };
}

/** `git --version`, asked once per process: it does not change while Orca runs. */
let knownVersion: Promise<string> | undefined;
function gitVersion(cwd: string, signal: AbortSignal | undefined): Promise<string> {
  const asked = (knownVersion ??= git(['--version'], { cwd, ...(signal ? { signal } : {}) }).then((result) => result.stdout));
  // A failure is not kept: git may be installed meanwhile.
  asked.catch(() => (knownVersion = undefined));
  return asked;
}

/** Whether .gitignore rules ignore the folder (and git tracks nothing in it). */
async function ignoredFolder(toplevel: string, prefix: string, signal: AbortSignal | undefined): Promise<boolean> {
  const found = await git(['check-ignore', '-q', '--', prefix.replace(/\/$/, '')], { cwd: toplevel, okCodes: [0, 1], ...(signal ? { signal } : {}) });
  return found.code === 0;
}

/** The paths `.gitmodules` names; none without the file. */
async function submodulePaths(toplevel: string, signal: AbortSignal | undefined): Promise<string[]> {
  if (!existsSync(join(toplevel, '.gitmodules'))) return [];
  const found = await git(['config', '--file', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$'], {
    cwd: toplevel,
    // 1: no such key.
    okCodes: [0, 1],
    ...(signal ? { signal } : {}),
  });
  return found.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(line.indexOf(' ') + 1));
}

export function defaultDataHome(): string {
  return process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
}

/** Real path of the data home when it exists, so the paths match what `git worktree list` reports. */
function worktreesFolder(dataHome: string, commonDir: string): string {
  let home = dataHome;
  try {
    home = realpathSync(dataHome);
  } catch {
    // Not made yet: openWorktree creates it.
  }
  const id = createHash('sha1').update(commonDir).digest('hex').slice(0, 12);
  return join(home, 'opencode-orca', 'worktrees', id);
}
