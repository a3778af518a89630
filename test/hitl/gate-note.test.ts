import { describe, expect, it } from 'vitest';
import { fenced, gateNote, OVERVIEW_ROW_WIDTH, overviewRow } from '../../src/hitl/gate-note.js';
import { wrapRows } from '../../src/hitl/dialog-pages.js';
import type { Gate } from '../../src/machines/gates.js';
import { diffProposals } from '../../src/machines/plan-diff.js';
import type { PlanProposal } from '../../src/machines/types.js';
import { forMarkdown } from '../../src/notices/session-notes.js';
import { longPlanProposal } from '../support/long-plan.js';
import { approvalGate, budgetGate, deviationGate, mergeGate } from './gate-fixtures.js';

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

describe("a gate's document as a note in the session", () => {
  const plan = longPlanProposal(10) as PlanProposal;

  it('should hold the whole plan: the goal, every step in full with agent, dependencies, files and criterion, the lists, the forecast, then how to answer', () => {
    const note = gateNote(approvalGate(plan), { forecast: 'Forecast: at least 20 dispatches' });
    expect(note.split('\n')[0]).toBe('Orca: plan plan_X waits for your approval: 10 steps.');
    expect(note).toContain(`Goal: ${plan.goal}`);
    for (const [i, step] of plan.steps.entries()) {
      const after = step.depends_on?.length ? `, after ${step.depends_on.join(', ')}` : '';
      expect(note).toContain(`Step ${i + 1} of 10: ${step.id} (${step.agent})${after}: ${step.description}\nFiles: ${step.files!.join(', ')}\nDone when: ${step.success}`);
    }
    for (const item of [...plan.assumptions, ...plan.risks, ...plan.verification]) expect(note).toContain(`- ${item}`);
    expect(note).toContain('Forecast: at least 20 dispatches');
    expect(note.split('\n\n').at(-1)).toBe(
      'Decide in the dialog below. Esc closes the dialog and the plan waits: answer later with /orca-approve, /orca-changes <guidance>, /orca-reject, or type /orca-resume to be asked again.',
    );
  });

  it("should say, before the person decides, which configured checks failed before the plan, and only when some did", () => {
    const gate = { ...approvalGate(plan), failing_before: [{ command: 'npm test', lines: ['not ok 3 - absolute zero offset in Kelvin', '# fail 1'] }] };
    expect(gateNote(gate).split('\n\n')).toContain("Failing before this plan (its verification reports them as old, not the plan's):\n- npm test: not ok 3 - absolute zero offset in Kelvin");
    expect(gateNote(approvalGate(plan))).not.toContain('Failing before this plan');
  });

  it('should say which steps run at the same time, and what waits for what, in one line under the goal', () => {
    const proposal = { ...plan, steps: [{ id: 'fix', agent: 'coder', description: 'd' }, { id: 'add', agent: 'coder', description: 'd' }, { id: 'docs', agent: 'document-writer', description: 'd', depends_on: ['fix', 'add'] }] } as PlanProposal;
    expect(gateNote(approvalGate(proposal)).split('\n\n')[0]!.split('\n').slice(1, 3)).toEqual([`Goal: ${plan.goal}`, 'Order: fix and add at once, then docs.']);
  });

  it('should start with an overview, the goal, the order and one row per step (id, agent, files), a 4-step plan on one screen at 80x24, then every detail (issue 50)', () => {
    const four = longPlanProposal(4) as PlanProposal;
    const blocks = gateNote(approvalGate(four), { forecast: 'Forecast: at least 8 dispatches' }).split('\n\n');
    expect(blocks[0]).toBe(
      [
        'Orca: plan plan_X waits for your approval: 4 steps.',
        `Goal: ${four.goal}`,
        'Order: parser-1, then cache-2, then cli-3, then errors-4.',
        '- parser-1 (coder): src/parser.ts, test/parser.test.ts',
        '- cache-2 (coder): src/cache.ts, test/cache.test.ts',
        '- cli-3 (coder): src/cli.ts, test/cli.test.ts',
        '- errors-4 (coder): src/errors.ts, test/errors.test.ts',
      ].join('\n'),
    );
    // As the TUI draws a note at 80 columns: its text from column 5 to 78 (seen in tmux); with the dialog
    // closed, 18 rows of the conversation are on screen.
    const rows = blocks[0]!.split('\n').flatMap((line) => wrapRows(line, 74));
    expect(rows.length).toBeLessThanOrEqual(18);
    // Then the details, complete.
    for (const [i, step] of four.steps.entries()) expect(blocks[1 + i]).toBe(`Step ${i + 1} of 4: ${step.id} (${step.agent})${i ? `, after ${step.depends_on![0]}` : ''}: ${step.description}\nFiles: ${step.files!.join(', ')}\nDone when: ${step.success}`);
  });

  it('should keep a row of the overview to one line, cutting the files it cannot show to a count', () => {
    const files = ['src/a-very-long-module-name.ts', 'src/another-long-module-name.ts', 'test/a-very-long-module-name.test.ts'];
    const row = overviewRow({ id: 'impl', agent: 'document-writer', files });
    expect(row).toBe('- impl (document-writer): src/a-very-long-module-name.ts +2 more');
    expect(row.length).toBeLessThanOrEqual(OVERVIEW_ROW_WIDTH);
    expect(overviewRow({ id: 'research', agent: 'researcher' })).toBe('- research (researcher)');
    expect(overviewRow({ id: 'x'.repeat(80), agent: 'coder', files })).toHaveLength(OVERVIEW_ROW_WIDTH);
  });

  it('should give a one-step plan no order and no overview row: its step follows the goal', () => {
    const one = { ...plan, steps: [plan.steps[0]!] };
    const blocks = gateNote(approvalGate(one)).split('\n\n');
    expect(blocks[0]).toBe(`Orca: plan plan_X waits for your approval: 1 step.\nGoal: ${plan.goal}`);
    expect(blocks[1]).toMatch(/^Step 1 of 1: /);
  });

  it('should say where the steps will work when it is not in worktrees of their own, after the forecast', () => {
    const where = 'Where its steps work: steps share the project directory (no git: what each changed is not measured): the project folder app is ignored by the git repository at /home/ana, so git carries none of its files.';
    const blocks = gateNote(approvalGate(plan), { forecast: 'Forecast: at least 20 dispatches', where }).split('\n\n');
    expect(blocks.slice(-3, -1)).toEqual(['Forecast: at least 20 dispatches', where]);
    expect(gateNote(approvalGate(plan))).not.toContain('Where its steps work');
  });

  it("should put a revision's changes first, then the overview of the plan as it is now, in words, every one in full (a '+' or '-' would read as a list marker)", () => {
    const steps = plan.steps.slice(0, 9).map((s) => ({ ...s }));
    steps[2] = { ...steps[2]!, description: `${steps[2]!.description} Keep the old message as a hint.` };
    const revised = { ...plan, steps };
    const note = gateNote(approvalGate(revised, diffProposals(plan, revised, new Set())));
    const blocks = note.split('\n\n');
    expect(blocks[0]).toBe('Orca: plan plan_X waits for your approval (a revised version): 9 steps.');
    expect(blocks[2]).toMatch(/^Goal: .*\nOrder: parser-1, then cache-2, then /);
    expect(blocks[2]!.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(9);
    expect(blocks[1]).toBe(
      [
        'What changed since the version you saw:',
        `- removed release-10 (document-writer): ${plan.steps[9]!.description}`,
        `- changed cli-3 description: ${plan.steps[2]!.description} → ${steps[2]!.description}`,
      ].join('\n'),
    );
  });

  it("should show a failed step's whole error in a fenced block, as it is, with what the attempt changed", () => {
    const error = 'npm test failed:\n- expected 2\n+ received 3\n=======\n>>>>>>> step\n```js\nconst a = `x`;\n```';
    const note = gateNote(deviationGate({ error, diff: mergeGate().diff }));
    expect(note).toContain(`The error of its last attempt, in full:\n${fenced(error)}`);
    expect(fenced(error).startsWith('````\n')).toBe(true); // longer than any backtick run inside
    expect(note).toContain('What the failed attempt changed: 2 files +15 −4, 1 not declared\n- src/hello.ts +12 −4\n- notes.md +3 −0 (added, not declared)');
    expect(note).toContain('To retry or replan with guidance, type /orca-retry <guidance> or /orca-replan <guidance> instead.');
    // As the TUI gets it: the fence kept whole (ids inside it are not made code), control characters shown.
    const shown = forMarkdown(gateNote(deviationGate({ error: 'plan_01ABC failed \x1b[2J' })));
    expect(shown).toContain('```\nplan_01ABC failed ␛[2J\n```');
    expect(shown).toContain('plan `plan_X` failed');
  });

  it("should show a merge gate's conflicts fenced, what git said, what the step changed, and where to take it by hand", () => {
    const note = gateNote(mergeGate({ error: 'error: patch failed: src/hello.ts:1' }));
    expect(note).toContain(`Conflict in src/hello.ts:\n${fenced('<<<<<<< your tree\nexport const hi = 1;\n=======\nexport const hi = 2;\n>>>>>>> step s1')}`);
    expect(note).toContain(`What git said:\n${fenced('error: patch failed: src/hello.ts:1')}`);
    expect(note).toContain('- its worktree: /tmp/orca-wt/plan_X-s1');
  });

  it('should say what a budget, an interrupted step and the planner ask, in full', () => {
    expect(flat(gateNote(budgetGate()))).toContain('Orca: plan plan_X has reached its budget: 100 dispatches of the cap 100');
    const questions: Gate = {
      kind: 'question',
      planId: 'plan_X',
      questions: [{ header: 'Database', question: 'Which database should the cache use?', options: [{ label: 'sqlite', description: 'a file' }, { label: 'redis' }] }],
      options: [],
      autoOptions: [],
    };
    expect(gateNote(questions)).toBe(
      'Orca: the planner asks about plan plan_X:\n\nDatabase: Which database should the cache use?\n- sqlite: a file\n- redis\n\nDecide in the dialog below. Esc closes the dialog and the plan waits: type /orca-resume to be asked again.',
    );
  });
});
