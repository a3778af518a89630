import { existsSync, mkdirSync, writeFileSync } from 'node:fs';

/**
 * What Orca writes into a state folder it creates (`.opencode/plans/`, `.opencode/agenda/`). Plan
 * files, journals and the agenda's log change at every step; inside the project they would be in
 * OpenCode's git snapshot of the worktree around every turn (`snapshot`, on by default), which
 * then hashes them anew each time: `npm run bench` measured Orca's 12-step DAG at 1.48× a bare
 * client doing the same work with them in the snapshots, about 1.0× without. Git ignores the
 * folder for the user's repository too: these files are the running state of plans, not source.
 * A user who wants them committed deletes this file; Orca writes it only when it creates the
 * folder, so it stays deleted.
 */
export const STATE_GITIGNORE = '# Written by Orca: plan and agenda state, kept out of git and of OpenCode\'s file snapshots.\n# Delete this file to commit the folder; Orca does not write it again.\n*\n';

/**
 * Creates the state folder `dir` (and its parents) when missing, with its `.gitignore`; a folder
 * that exists is left as it is. One stat when it exists, so it runs before every write (a folder
 * deleted while a plan runs comes back).
 */
export function ensureStateDir(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true });
  // `wx`: never replaces a file someone wrote meanwhile.
  try {
    writeFileSync(`${dir}/.gitignore`, STATE_GITIGNORE, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
