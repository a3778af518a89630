import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginInput } from '@opencode-ai/plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrcaPlugin } from '../../src/plugin.js';

const PLAN = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Y';

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'orca-entry-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('OrcaPlugin in a step worktree', () => {
  it("should return the passive hooks, with none of Orca's tools, before building anything of Orca", async () => {
    const directory = join(root, 'repo', '.git', 'orca-worktrees', PLAN, 'impl.2', 'app');
    mkdirSync(directory, { recursive: true });
    const messages: string[] = [];
    const client = { app: { log: async ({ body }: { body: { message: string } }) => void messages.push(body.message) } };
    const hooks = await OrcaPlugin({ directory, worktree: directory, client } as unknown as PluginInput, {});
    expect(hooks).not.toHaveProperty('tool');
    expect(hooks).not.toHaveProperty('dispose');
    expect(hooks).not.toHaveProperty('command.execute.before');
    expect(messages[0]).toBe(`orca (passive) loaded for ${directory}`);
    // Nothing of Orca's was written in the worktree: no .opencode/ (plans, leases, agenda).
    expect(() => mkdirSync(join(directory, '.opencode'))).not.toThrow();
  });

  it('should refuse bad options there too, as the main instance does', async () => {
    const directory = join(root, 'repo', '.git', 'orca-worktrees', PLAN, 'impl.3');
    mkdirSync(directory, { recursive: true });
    await expect(OrcaPlugin({ directory, client: {} } as unknown as PluginInput, { isolation: { mode: 'copy' } })).rejects.toThrow(/isolation\.mode/);
  });
});
