import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRewindArguments, runRewindCommand } from '../../src/hitl/rewind-commands.js';
import { CommandError } from '../../src/hitl/commands.js';
import { createPlanIndex, summarize } from '../../src/persistence/plan-index.js';
import { aText, endedPlan } from '../rewind/fixtures.js';
import { read, tempDirs } from '../workspace/repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** The commands' deps over a project with an ended plan, listed in the index as the session's. */
async function project() {
  const ended = await endedPlan(dirs);
  const index = createPlanIndex();
  const summary = summarize(ended.store.load(ended.planId));
  index.trigger.upsert({ summary: { ...summary, caller_session_id: 'ses_me' } });
  return { ...ended, deps: { rewind: { store: ended.store, repo: ended.repo, include: [] }, host: { index } } };
}

describe('/orca-diff, /orca-undo, /orca-redo', () => {
  it("should post the session's last ended plan's diff in a fence, and take it back only with --yes", async () => {
    const { dir, planId, deps } = await project();
    const diff = await runRewindCommand(deps, 'orca-diff', '', 'ses_me');
    expect(diff).toMatch(new RegExp(`^Orca: what plan ${planId} landed in your working tree:\\n\\n\`\`\`diff\\n# ${planId} · s1 \\(coder\\)`));
    expect(diff).toContain('+s2 was here');
    expect(diff.endsWith('```')).toBe(true);

    const dry = await runRewindCommand(deps, 'orca-undo', '', 'ses_me');
    // The plan was not named (the session's last ended one): the line to type does not name it either.
    expect(dry).toContain('Nothing has changed yet: type /orca-undo --yes to do it.');
    expect(await runRewindCommand(deps, 'orca-undo', `${planId} --step s2`, 'ses_me')).toContain(`Nothing has changed yet: type /orca-undo ${planId} --step s2 --yes to do it.`);
    expect(existsSync(join(dir, 'new.txt'))).toBe(true);
    const done = await runRewindCommand(deps, 'orca-undo', `${planId} --yes`, 'ses_me');
    expect(done).toContain(`To put them back: /orca-redo ${planId} --yes.`);
    expect(read(dir, 'a.txt')).toBe(aText(20));
    expect(deps.rewind.store.load(planId).undos![0]).toMatchObject({ kind: 'undo', channel: 'command' });
    expect(await runRewindCommand(deps, 'orca-redo', '--yes', 'ses_me')).toContain('Put the changes of s2, s1');
    expect(read(dir, 'new.txt')).toBe('added by s1\n');
  });

  it('should say what it takes when the arguments are wrong, or no plan of the session ended', async () => {
    const { deps } = await project();
    expect(() => parseRewindArguments('orca-undo', '--force')).toThrow(CommandError);
    expect(() => parseRewindArguments('orca-undo', '--force')).toThrow('/orca-undo does not take "--force": /orca-undo [plan_id] [--step <id>]... [--yes]');
    expect(() => parseRewindArguments('orca-redo', '--step s1')).toThrow('/orca-redo does not take "--step"');
    expect(() => parseRewindArguments('orca-undo', 'plan_bad')).toThrow('is not a plan_id');
    expect(parseRewindArguments('orca-undo', '--step s1 --yes --step s2')).toEqual({ steps: ['s1', 's2'], yes: true });
    await expect(runRewindCommand(deps, 'orca-undo', '', 'ses_other')).rejects.toThrow('No plan of this session has ended. Name one: /orca-undo <plan_id>');
  });
});
