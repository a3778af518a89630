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
