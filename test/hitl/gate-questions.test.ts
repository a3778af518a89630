import { describe, expect, it } from 'vitest';
import { choiceFromAnswers, gatePages, gateQuestions } from '../../src/hitl/gate-questions.js';
import { dialogRows } from '../../src/hitl/dialog-rows.js';
import { decisionEvent } from '../../src/machines/gates.js';
import { breakerText, budgetGate, deviationGate, mergeGate } from './gate-fixtures.js';

const budget = budgetGate();
const breaker = breakerText('s2');
const deviation = (patch: Parameters<typeof deviationGate>[0] = {}) => deviationGate({ stepId: 's2', agent: 'tester', error: 'test 3 is red', ...patch });

describe('gate questions', () => {
  it('should ask at the dispatch cap with the progress, what Continue allows, exactly Continue / Stop and an optional note', () => {
    const [action, note] = gateQuestions(budget);
    expect(action!.header).toBe('Dispatch budget spent');
    expect(action!.header.length).toBeLessThanOrEqual(30);
    expect(action!.question).toContain('100 dispatches of the cap 100');
    expect(action!.question).toContain('1 of 2 steps completed');
    expect(action!.question).toContain('Continue allows 100 more dispatches');
    expect(action!.options.map((o) => o.label)).toEqual(['Continue', 'Stop']);
    expect(action!.custom).toBe(false);
    expect(note).toMatchObject({ custom: true, options: [{ label: 'No guidance' }] });
    // Its text field opens at 2, "Type your own answer", after No guidance (issue 49, item 6).
    expect(note!.question).toBe('A note for the record. Optional. Press 2, type your answer, then Enter.');
  });

  it('should turn the answers at the dispatch cap into budget events, the note as text', () => {
    const at = { channel: 'question' as const, at: 't' };
    expect(decisionEvent(budget, choiceFromAnswers(budget, [['Continue'], ['No guidance']]), at)).toEqual({ type: 'budget.continue', ...at });
    expect(decisionEvent(budget, choiceFromAnswers(budget, [['Stop'], ['too costly']]), at)).toEqual({ type: 'budget.stop', text: 'too costly', ...at });
    expect(() => decisionEvent(budget, { option: 'Retry' }, at)).toThrow('"Retry" is not an option at the budget gate of plan_X.');
  });

  it('should say plainly at an open breaker why the question reached a human, and still offer Retry', () => {
    const [action] = gateQuestions(deviation({ breaker }));
    expect(action!.header).toBe('Breaker: step s2');
    expect(action!.question).toBe(
      'Step s2 (tester) failed (3 failed attempts): test 3 is red\n' +
        'Circuit breaker: the same error 3 times in a row on step s2; automatic retrying stopped, a human decides.\nWhat now?',
    );
    expect(action!.options.map((o) => o.label)).toEqual(['Retry', 'Replan', 'Stop']);
    expect(action!.options[0]!.description).toMatch(/same error keeps coming back/);
  });

  it('should keep the plain deviation question without a breaker, and headers within 30 characters', () => {
    const [action] = gateQuestions(deviation());
    expect(action!.question).toBe('Step s2 (tester) failed (3 failed attempts): test 3 is red\nWhat now?');
    expect(action!.options[0]!.description).toBe('Run this step again (with your guidance, if any)');
    const long = 'a-very-long-step-identifier-indeed';
    for (const gate of [deviation({ stepId: long }), deviation({ stepId: long, breaker })]) {
      expect(gateQuestions(gate)[0]!.header.length).toBeLessThanOrEqual(30);
    }
  });
});

describe('the approval question at 80x24', () => {
  type ApprovalGate = Extract<Parameters<typeof gateQuestions>[0], { kind: 'approval' }>;
  const planId = 'plan_01M85HFE778WMX3GEX088XC0GP';
  const step = (i: number) => ({
    id: `s${i}`,
    agent: (['coder', 'tester', 'document-writer'] as const)[i % 3]!,
    description: `Step ${i} of the plan: change module ${i} and keep its tests green, then report what changed`,
    ...(i > 1 ? { depends_on: [`s${i - 1}`] } : {}),
    files: [`src/module${i}.ts`],
  });
  const approval = (steps: number, changes: ApprovalGate['changes'] = null): ApprovalGate => ({
    kind: 'approval',
    planId,
    proposal: {
      goal: 'Refactor every module of the project so that each keeps its tests green and documents what changed',
      steps: Array.from({ length: steps }, (_, i) => step(i + 1)),
      assumptions: [],
      risks: ['flaky tests'],
      verification: ['npm test passes'],
    },
    changes,
    review_agents: ['coder'],
    options: ['Approve', 'Request Changes', 'Reject'],
    autoOptions: ['Approve', 'Request Changes', 'Reject'],
  });
  const questionOf = (gate: ApprovalGate, reserve = 0) => gateQuestions(gate, { reserve })[0]!.question.split('\n');

  it('should fit a 10-step plan in 10 lines of 69 columns, so the options stay on screen', () => {
    const lines = questionOf(approval(10));
    expect(lines).toHaveLength(10);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(69);
    expect(lines[0]).toMatch(/^Goal: Refactor every module .*…$/);
    expect(lines[1]).toMatch(/^1\. s1 \(tester\): Step 1 of the plan/);
    expect(lines[2]).toMatch(/^2\. s2 \(document-writer\) ← s1: Step 2/);
    expect(lines[7]).toBe("+ 4 more step(s), shown in full before this question");
    expect(lines[8]).toBe('10 files · 1 risk · 1 check');
    expect(lines[9]).toBe(`Approve plan ${planId}?`);
  });

  it('should list every step of a plan that fits, and give up steps to a note or a change summary', () => {
    expect(questionOf(approval(3))).toHaveLength(6);
    expect(questionOf(approval(7))).toHaveLength(10); // 7 steps fit without a "more" line
    const revised = questionOf(approval(10, {
        added: [{ id: 's10', agent: 'coder', description: 'new' }],
        removed: [],
        changed: [{ id: 's2', agent: 'tester', fields: [{ field: 'description', from: 'a', to: 'b' }] }],
        kept: [],
        unchanged: 8,
      }));
    expect(revised).toHaveLength(10);
    expect(revised[1]).toMatch(/^Changed: /);
    const noted = questionOf(approval(10), 3);
    expect(noted).toHaveLength(7);
    expect(noted.at(-3)).toBe("+ 7 more step(s), shown in full before this question");
  });
});

describe('dialog rows', () => {
  it('should count rows as the TUI wraps words at 69 columns', () => {
    // Seen in tmux at 80x24: this note took three rows.
    const note = 'Note: "ship it" is not offered at the approval gate of plan plan_01M85MK4SCH6VBTNE0KATT3GX4 (offered: Approve, Request Changes, Reject).';
    expect(dialogRows(note)).toBe(3);
    expect(dialogRows('short')).toBe(1);
    expect(dialogRows('a\nb')).toBe(2);
    expect(dialogRows('x'.repeat(69))).toBe(1);
  });
});

describe('the resume question at 80x24', () => {
  it('should keep the question to 9 rows and each option description to one, even with a long detail', () => {
    const gate = {
      kind: 'resume' as const,
      planId: 'plan_01M85NT0VK4S5Z3XQTPQP7YX73',
      stepId: 's1',
      agent: 'coder',
      attempt: 1,
      turn: 'specialist' as const,
      sessionId: 'ses_df4a2f1dbffe6kPzrkxT2DMNAO',
      detail: 'its messages cannot be read (OpenCode did not list the messages of session ses_df4a2f1dbffe6kPzrkxT2DMNAO: BadRequest: Expected OutputFormatJsonSchema)',
      lastActivityAt: '2026-11-24T02:22:57.982Z',
      files: ['src/module1.ts'],
      options: ['Re-run', 'Mark done', 'Stop'] as Array<'Re-run' | 'Mark done' | 'Stop'>,
      autoOptions: [],
    };
    const [action] = gateQuestions(gate);
    expect(dialogRows(action!.question)).toBeLessThanOrEqual(9);
    expect(action!.question).toContain('was interrupted (Esc, or its server stopped)');
    for (const option of action!.options) expect((option.description ?? '').length).toBeLessThanOrEqual(69);
  });
});

describe('the merge question at 80x24', () => {
  const rowsOf = (text: string) => dialogRows(text);

  it('should show the step, its conflicting regions, what it changed and where to resolve by hand, with the three options', () => {
    const gate = mergeGate();
    const [action, note] = gateQuestions(gate);
    expect(action!.header).toBe('Not applied: s1');
    expect(action!.options.map((o) => o.label)).toEqual(['Run again on top', 'Resolved by hand', 'Stop']);
    for (const option of action!.options) expect(option.description!.length).toBeGreaterThan(0);
    for (const option of action!.options) expect(option.description!.length).toBeLessThanOrEqual(69);
    expect(action!.question).toBe(
      'Step s1 (coder), attempt 1: its changes did not apply to your working tree (conflicts in src/hello.ts).\n' +
        'It changed 2 files +15 −4, 1 not declared.\nWorktree: /tmp/orca-wt/plan_X-s1\nPatch: /p/.opencode/plans/plan_X.s1.patch\n' +
        '(Its conflicts were shown before this question.)\nRun it again on top of your tree, take its changes by hand, or stop?',
    );
    expect(rowsOf(action!.question)).toBeLessThanOrEqual(10);
    expect(note).toMatchObject({ custom: true });
    // Read first, page by page: the regions, the files, where to take them from.
    const pages = gatePages(gate).join('\n');
    expect(pages).toContain('Conflict in src/hello.ts:\n<<<<<<< your tree\nexport const hi = 1;\n=======\nexport const hi = 2;\n>>>>>>> step s1');
    expect(pages).toContain('- notes.md +3 −0 (added, not declared)');
    expect(pages).toContain('- its worktree: /tmp/orca-wt/plan_X-s1');
    expect(pages).toContain('- its patch: /p/.opencode/plans/plan_X.s1.patch');
  });

  it('should hold everything in the question when it fits', () => {
    const gate = mergeGate({ conflicts: [], error: 'your tree changed while applying', diff: undefined });
    const [action] = gateQuestions(gate);
    expect(gatePages(gate)).toEqual([]);
    expect(action!.question).toContain("What git said:\nyour tree changed while applying");
    expect(action!.question).toContain('- its worktree: /tmp/orca-wt/plan_X-s1');
    expect(rowsOf(action!.question)).toBeLessThanOrEqual(10);
  });

  it('should turn the answers into merge events, the note as text', () => {
    const gate = mergeGate();
    const at = { channel: 'question' as const, at: 't' };
    expect(decisionEvent(gate, choiceFromAnswers(gate, [['Run again on top'], ['keep the v2 API']]), at)).toEqual({ type: 'merge.rerun', stepId: 's1', text: 'keep the v2 API', ...at });
    expect(decisionEvent(gate, choiceFromAnswers(gate, [['Resolved by hand'], ['No guidance']]), at)).toEqual({ type: 'merge.resolved', stepId: 's1', ...at });
  });

  it('should put long conflicts on pages before a question that keeps its options on screen, each region cut', () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i} \u001b[2J of the clash`).join('\n');
    const gate = mergeGate({ conflicts: [{ path: 'a.ts', hunks: [long, long, long, long] }, { path: 'b.ts', hunks: [long] }] });
    for (const reserve of [0, 3]) {
      const [action] = gateQuestions(gate, { reserve });
      expect(rowsOf(action!.question)).toBeLessThanOrEqual(10 - reserve);
      expect(action!.question).toContain('conflicts in a.ts, b.ts');
      expect(action!.question).toContain('Worktree: /tmp/orca-wt/plan_X-s1');
      expect(action!.question).toContain('It changed 2 files +15 −4, 1 not declared.');
    }
    const pages = gatePages(gate).join('\n');
    expect(pages).toContain('Conflict in a.ts:');
    expect(pages).toContain('line 11 ␛[2J of the clash');
    expect(pages).not.toContain('line 12 ');
    expect(pages).toContain('… 28 more lines');
    expect(pages).toContain('… 1 more conflicting region');
    expect(pages).not.toContain('\u001b');
  });

  it('should say so when Run again on top is no longer offered', () => {
    const [action] = gateQuestions(mergeGate({ options: ['Resolved by hand', 'Stop'] }));
    expect(action!.options.map((o) => o.label)).toEqual(['Resolved by hand', 'Stop']);
    expect(action!.question).toContain('Run again on top is no longer offered after this many attempts.');
  });
});

describe('the deviation question with what the attempt changed', () => {
  it('should list the files the failed attempt changed, undeclared ones flagged, and give the totals when the error is long', () => {
    const diff = mergeGate().diff!;
    const [short] = gateQuestions(deviation({ diff }));
    expect(short!.question).toBe(
      'Step s2 (tester) failed (3 failed attempts): test 3 is red\nIt changed: 2 files +15 −4, 1 not declared\n- src/hello.ts +12 −4\n- notes.md +3 −0 (added, not declared)\nWhat now?',
    );
    const [long] = gateQuestions(deviation({ diff, error: 'x '.repeat(400) }));
    expect(dialogRows(long!.question)).toBeLessThanOrEqual(10);
    expect(long!.question).toContain('\nIt changed 2 files +15 −4, 1 not declared; the files were shown before this question.\nWhat now?');
    expect(gatePages(deviation({ diff, error: 'x '.repeat(400) })).join('\n')).toContain('- notes.md +3 −0 (added, not declared)');
  });
});
