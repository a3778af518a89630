import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceSupport } from '../../src/workspace/support.js';
import { gitIn, initRepo, tempDirs, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('workspaceSupport', () => {
  it('should allow worktrees at the root of a repository, kept under the data home by the git dir\'s hash', async () => {
    const dir = initRepo(dirs.make());
    const data = dirs.make();
    const support = await workspaceSupport(dir, { dataHome: data });
    expect(support).toEqual({
      ok: true,
      toplevel: dir,
      prefix: '',
      commonDir: join(dir, '.git'),
      worktrees: expect.stringMatching(new RegExp(`^${data}/opencode-orca/worktrees/[0-9a-f]{12}$`)),
    });
  });

  it('should give the prefix of a project directory inside the repository', async () => {
    const dir = initRepo(dirs.make(), { 'app/web/index.ts': 'x\n' });
    const support = await workspaceSupport(join(dir, 'app/web'));
    expect(support).toMatchObject({ ok: true, toplevel: dir, prefix: 'app/web/' });
  });

  it('should allow a project folder git carries nothing of yet (an empty new package), or only untracked files of', async () => {
    const dir = initRepo(dirs.make(), { 'packages/old/index.ts': 'x\n' });
    mkdirSync(join(dir, 'packages/new'), { recursive: true });
    writeFiles(dir, { 'tools/script.sh': 'echo\n' });
    expect(await workspaceSupport(join(dir, 'packages/new'))).toMatchObject({ ok: true, prefix: 'packages/new/' });
    expect(await workspaceSupport(join(dir, 'tools'))).toMatchObject({ ok: true, prefix: 'tools/' });
  });

  it('should refuse a project folder the repository ignores, with no repository to measure in (git sees none of its files)', async () => {
    const dir = initRepo(dirs.make(), { '.gitignore': '*\n!.gitignore\n' });
    writeFiles(dir, { 'scratch/a.txt': 'a\n', 'kept/b.txt': 'b\n' });
    gitIn(dir, 'add', '-f', 'kept/b.txt');
    expect(await workspaceSupport(join(dir, 'scratch'))).toEqual({ ok: false, reason: `the project folder scratch is ignored by the git repository at ${dir}, so git carries none of its files.` });
    // A folder holding a tracked file is not ignored, whatever the patterns say.
    expect(await workspaceSupport(join(dir, 'kept'))).toMatchObject({ ok: true, prefix: 'kept/' });
  });

  it('should allow a project in a repository that is itself a linked worktree of another', async () => {
    const main = initRepo(dirs.make(), { 'app/index.ts': 'x\n' });
    const linked = join(dirs.make(), 'linked');
    gitIn(main, 'worktree', 'add', '-q', '--detach', linked);
    const support = await workspaceSupport(join(linked, 'app'));
    expect(support).toMatchObject({ ok: true, toplevel: linked, prefix: 'app/', commonDir: join(main, '.git') });
  });

  it('should allow a repository with no commit yet: the snapshot commit needs no parent', async () => {
    const dir = initRepo(dirs.make(), {});
    expect(await workspaceSupport(dir)).toMatchObject({ ok: true, toplevel: dir });
  });

  it('should refuse a directory outside any repository', async () => {
    const dir = dirs.make();
    expect(await workspaceSupport(dir)).toEqual({ ok: false, reason: `${dir} is not in a git repository.` });
  });

  it('should refuse a bare repository', async () => {
    const dir = dirs.make();
    gitIn(dir, 'init', '-q', '--bare');
    expect(await workspaceSupport(dir)).toEqual({ ok: false, reason: `${dir} is in a bare git repository, which has no working tree.` });
  });

  it('should refuse a directory inside .git', async () => {
    const dir = initRepo(dirs.make());
    const support = await workspaceSupport(join(dir, '.git'));
    expect(support).toMatchObject({ ok: false, reason: expect.stringContaining('is inside a git directory') });
  });

  it('should refuse submodules, naming them, and still describe the repository for a shared tree', async () => {
    const dir = initRepo(dirs.make());
    writeFiles(dir, { '.gitmodules': '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ../lib\n' });
    mkdirSync(join(dir, 'vendor/lib'), { recursive: true });
    const support = await workspaceSupport(dir);
    expect(support).toMatchObject({
      ok: false,
      reason: "the repository has submodules (vendor/lib): a step's worktree would hold them empty and drop the changes made inside them.",
      repository: { toplevel: dir, prefix: '' },
    });
  });

  it('should allow a .gitmodules that names no submodule', async () => {
    const dir = initRepo(dirs.make(), { '.gitmodules': '' });
    expect(await workspaceSupport(dir)).toMatchObject({ ok: true });
  });
});
