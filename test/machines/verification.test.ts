import { describe, expect, it } from 'vitest';
import { checkVerdict, planBase, verificationHeld, verificationItems } from '../../src/machines/verification.js';
import { DEFAULT_PLAN_POLICY, type StepRecord, type VerificationCheck } from '../../src/machines/types.js';

const failed = (output: string, before?: VerificationCheck['before']): VerificationCheck => ({ kind: 'command', name: 'npm test', passed: false, output, ...(before ? { before } : {}) });
const proposal = (verification: string[]) => ({ goal: 'g', steps: [], assumptions: [], risks: [], verification });

describe('the verification rules', () => {
  it('should call a failure old only when the base failed the same way, numbers and ids aside', () => {
    expect(checkVerdict({ ...failed('x'), passed: true })).toBe('passed');
    expect(checkVerdict(failed('1 failing: greets (took 12 ms)'))).toBe('new');
    expect(checkVerdict(failed('1 failing: greets (took 12 ms)', { passed: true, output: 'passed (exit 0)' }))).toBe('new');
    expect(checkVerdict(failed('1 failing: greets (took 12 ms)', { passed: false, output: '1 failing:  greets (took 3 ms)' }))).toBe('old');
    // The plan added passing tests: the counts differ, the failing lines do not.
    const before = ' ✓ parses (2 ms)\n × greets in French 3ms\nTests  1 failed | 1 passed (2)\nStart at 04:20:43';
    const now = ' ✓ parses (1 ms)\n ✓ prints --json (1 ms)\n × greets in French 4ms\nTests  1 failed | 2 passed (3)\nStart at 05:01:02';
    expect(checkVerdict(failed(now, { passed: false, output: before }))).toBe('old');
    // The same command failing with another test too: the plan may have broken it.
    expect(checkVerdict(failed(`${now}\n × prints --json`, { passed: false, output: before }))).toBe('new');
    // node --test, as a relay run met it: the plan's new passing tests speak of errors; the old failure moved from 3 to 8.
    const tapBefore = 'ok 1 - boiling\nnot ok 3 - absolute zero offset in Kelvin\n  error: |-\n  code: ERR_ASSERTION\n# fail 1';
    const tapNow = 'ok 1 - boiling\nok 4 - --round rejects a negative n with an error\nnot ok 8 - absolute zero offset in Kelvin\n  error: |-\n  code: ERR_ASSERTION\n# fail 1';
    expect(checkVerdict(failed(tapNow, { passed: false, output: tapBefore }))).toBe('old');
    expect(checkVerdict(failed(`${tapNow}\nnot ok 9 - --round 1 prints 98.6 F`, { passed: false, output: tapBefore }))).toBe('new');
    // No line says what failed: the whole outputs, numbers aside.
    expect(checkVerdict(failed('exit 1 after 3 s', { passed: false, output: 'exit 1 after 9 s' }))).toBe('old');
    expect(checkVerdict(failed('exit 1: nothing to compare', { passed: false, output: 'exit 1 after 9 s' }))).toBe('new');
  });

  it('should hold with old failures unless the policy gates them', () => {
    const old = { passed: false, checks: [failed('1 failing: greets', { passed: false, output: '1 failing: greets' })], changed: [] };
    expect(verificationHeld(old, { verify_old_failures: 'report' })).toBe(true);
    expect(verificationHeld(old, {})).toBe(true);
    expect(verificationHeld(old, { verify_old_failures: 'gate' })).toBe(false);
    expect(verificationHeld({ ...old, checks: [...old.checks, failed('new one')] }, {})).toBe(false);
  });

  it("should check a revision's own list, or, when it dropped it after a failed verification, the list that failed", () => {
    const policy = DEFAULT_PLAN_POLICY;
    expect(verificationItems({ policy, proposal: proposal(['npm test']) })).toEqual(['npm test']);
    const failedRun = { passed: false, checks: [failed('red')], changed: [] };
    expect(verificationItems({ policy, proposal: proposal([]), revisions: [proposal(['npm test']), proposal([])], verification: failedRun })).toEqual(['npm test']);
    expect(verificationItems({ policy, proposal: proposal([]), revisions: [proposal(['npm test'])], verification: { ...failedRun, passed: true } })).toEqual([]);
  });

  it('should take as the plan base the start of a step that began before anything of the plan landed', () => {
    const step = (id: string, base: string, extra: Partial<StepRecord> = {}) =>
      ({ id, agent: 'coder', description: '', depends_on: [], status: 'completed', attempts: 1, failures: [], diff: { files: [], undeclared: [], patch_path: null, base, result: 'r', where: 'worktree' }, ...extra }) as StepRecord;
    expect(planBase([step('s2', 'b2', { depends_on: ['s1'] }), step('s3', 'b3', { on_top_of: ['s1'] }), step('s1', 'b1')])).toBe('b1');
    expect(planBase([step('s2', 'b2', { depends_on: ['s1'] })])).toBeNull();
    expect(planBase([])).toBeNull();
  });
});
