import { existsSync } from 'node:fs';
import { copyFile, cp, lstat, mkdir, readdir, realpath, rm, stat, symlink, unlink } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { git } from './git.js';
import { STATE_FOLDERS, projectPath } from './snapshot.js';
import type { GitRepository } from './support.js';

// What a slot gets that git does not carry (docs/worktrees.md): the include list, and the project's
// OpenCode config git hides. Placed when a slot is made and again at every reset (worktrees.ts).

/**
 * What OpenCode keeps in a config folder (`.opencode/`) for the plugin package it installs there, and
 * hides from git with its own `.opencode/.gitignore`: the folder's dependencies and what says they
 * are installed.
 */
const OPENCODE_INSTALL: readonly string[] = ['node_modules', 'package.json', 'package-lock.json', 'bun.lock', '.gitignore'];

/** OpenCode's config files, which it looks for from the session's folder up to the top of its git tree. */
const OPENCODE_CONFIG_FILES = ['opencode.json', 'opencode.jsonc'] as const;

/**
 * What git hides of the project's OpenCode config is placed in the slot, so the step's OpenCode
 * instance there reads the config the user's does (docs/worktrees.md):
 * - in `.opencode/`, everything git ignores at any depth but Orca's own state (plans, agenda): folders
 *   linked, files copied (an agent of yours ignored in an `agent/` folder git carries, too). OpenCode's
 *   install there (hidden by its own `.gitignore`) spares the slot's instance an install from the npm
 *   registry (about 9 s measured; offline it stalls, about 70 s by NOTES-opencode). A `.opencode/`
 *   ignored whole gives its entries, each placed as above.
 *   A slot gets a `.opencode/` git did not carry only for config (an install alone configures nothing);
 * - an `opencode.json` or `opencode.jsonc` git ignores, in the project folder or a folder above it in the
 *   repository: copied.
 * Only what git hides in the user's project: what git carries is the slot's own, a step may change it.
 * Placed again at every reset, as the user's is then.
 * `known`: that config as hiddenOpencodeConfig read it while the slot was reset.
 */
export async function placeOpencodeConfig(repo: GitRepository, root: string, signal: AbortSignal | undefined, known?: HiddenConfig): Promise<void> {
  const { inFolder: hidden, files } = known ?? (await hiddenOpencodeConfig(repo, signal));
  const folder = join(repo.prefix, '.opencode');
  const intoFolder = existsSync(join(root, folder)) || hidden.some((path) => !OPENCODE_INSTALL.includes(path.split('/')[0]!));
  if (intoFolder) {
    await placeIncluded(repo, root, hidden.map((path) => join('.opencode', path)));
    await copyWhereLinkShows(repo, root, hidden.map((path) => join(folder, path)), signal);
  }
  for (const path of files) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await copyFile(join(repo.toplevel, path), join(root, path));
  }
}

/** What git hides of the project's OpenCode config (placeOpencodeConfig places it in each slot; `orca doctor` lists it). */
export interface HiddenConfig {
  /** In the project's `.opencode/`, relative to it: what git ignores there, at any depth, less Orca's own state. */
  inFolder: string[];
  /** The ignored `opencode.json` / `opencode.jsonc` in the project folder and the folders above it, repository-relative. */
  files: string[];
}

/** See HiddenConfig: at most one git process, none when there is no config to look at. */
export async function hiddenOpencodeConfig(repo: GitRepository, signal?: AbortSignal): Promise<HiddenConfig> {
  const folder = join(repo.prefix, '.opencode');
  // A linked .opencode (git carries the link): the slot's is the user's own folder.
  const linked = (await lstat(join(repo.toplevel, folder)).catch(() => null))?.isSymbolicLink() ?? false;
  const withFolder = !linked && existsSync(join(repo.toplevel, folder));
  const present = configFilesAbove(repo).filter((path) => existsSync(join(repo.toplevel, path)));
  if (!withFolder && present.length === 0) return { inFolder: [], files: [] };
  const ignored = await hiddenFromGit(repo.toplevel, [...(withFolder ? [`${folder}/`] : []), ...present], signal);
  const state = STATE_FOLDERS.map((path) => path.slice('.opencode/'.length));
  const inFolder = ignored.has(`${folder}/`)
    ? await readdir(join(repo.toplevel, folder)) // ignored whole: each entry, as git hides them all
    : [...ignored].filter((path) => path.startsWith(`${folder}/`)).map((path) => path.slice(folder.length + 1).replace(/\/$/, ''));
  return {
    inFolder: inFolder.filter((path) => !state.some((name) => path === name || path.startsWith(`${name}/`))).sort(),
    files: present.filter((path) => ignored.has(path)),
  };
}

/**
 * A folder placed as a link that git does not ignore as a link (a rule for folders only: `private/`)
 * would be the step's change: copied instead. One git process when any link was placed.
 */
async function copyWhereLinkShows(repo: GitRepository, root: string, paths: readonly string[], signal: AbortSignal | undefined): Promise<void> {
  const isLink = async (path: string) => (await lstat(join(root, path)).catch(() => null))?.isSymbolicLink() ?? false;
  const links = (await Promise.all(paths.map(async (path) => ((await isLink(path)) ? [path] : [])))).flat();
  if (links.length === 0) return;
  const checked = await git(['check-ignore', '-z', '--stdin'], { cwd: root, input: links.map((path) => `${path}\0`).join(''), okCodes: [0, 1], ...(signal ? { signal } : {}) });
  const hidden = new Set(checked.stdout.split('\0').filter(Boolean));
  for (const path of links.filter((link) => !hidden.has(link))) {
    await unlink(join(root, path));
    await cp(join(repo.toplevel, path), join(root, path), { recursive: true, verbatimSymlinks: true });
  }
}

/**
 * What git ignores (and does not track) of these repository-relative paths, at any depth: one git
 * process. A folder ignored whole is named once, with a trailing `/`, and not walked.
 */
async function hiddenFromGit(top: string, paths: readonly string[], signal: AbortSignal | undefined): Promise<Set<string>> {
  const listed = await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--', ...paths.map((path) => `:(top,literal)${path}`)], {
    cwd: top,
    ...(signal ? { signal } : {}),
  });
  return new Set(listed.stdout.split('\0').filter(Boolean));
}

/** OpenCode's config file names in the project folder and each folder above it up to the repository's top, from the top. */
function configFilesAbove(repo: GitRepository): string[] {
  const parts = repo.prefix.split('/').filter(Boolean);
  const folders = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  return ['', ...folders].flatMap((dir) => OPENCODE_CONFIG_FILES.map((name) => (dir ? `${dir}/${name}` : name)));
}

/** A path of the include list missing in the user's project is skipped: there is nothing to bring. */
export async function placeIncluded(repo: GitRepository, root: string, include: readonly string[]): Promise<void> {
  const inside = `${await realpath(root)}${sep}`;
  for (const path of include.map(projectPath)) {
    const source = join(repo.toplevel, repo.prefix, path);
    const target = join(root, repo.prefix, path);
    const found = await stat(source).catch(() => null);
    if (!found) continue;
    await mkdir(dirname(target), { recursive: true });
    // Under a folder already linked (`node_modules` then `node_modules/.cache`): it is the user's, leave it.
    if (!`${await realpath(dirname(target))}${sep}`.startsWith(inside)) continue;
    await rm(target, { recursive: true, force: true });
    if (found.isDirectory()) await symlink(source, target, 'dir');
    else await copyFile(source, target);
  }
}
