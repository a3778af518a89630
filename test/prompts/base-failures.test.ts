import { describe, expect, it } from 'vitest';
import { failingChecks, plannerFailuresNote } from '../../src/prompts/base-failures.js';
import { stepPrompt } from '../../src/prompts/step-prompt.js';
import type { ThreadedContext } from '../../src/machines/types.js';

/** What node --test prints for a project with one test failing before the plan, as the verification's check says it. */
const OUTPUT = [
  'verification hook "npm test" failed (exit 1) after 0.4 s:',
  'ok 1 - boiling water in Fahrenheit',
  'not ok 3 - absolute zero offset in Kelvin',
  '  ---',
  "  error: 'Expected values to be strictly equal:\\n\\n273 !== 273.15\\n'",
  '    at TestContext.<anonymous> (file:///p/test/convert.test.js:7:58)',
  '# pass 2',
  '# fail 1',
  '# duration_ms 199.04',
].join('\n');

describe('the checks that fail before a plan', () => {
  it("should keep of a failed check the lines that name what failed (not the output's tail, nor its error's details), and leave out the passing checks", () => {
    expect(failingChecks([{ command: 'npm test', passed: false, output: OUTPUT }, { command: 'npm run lint', passed: true, output: 'ok' }])).toEqual([
      { command: 'npm test', lines: ['not ok 3 - absolute zero offset in Kelvin', '# fail 1'] },
    ]);
  });

  it('should tell the planner, and each step, that they are not the plan\'s to fix', () => {
    const checks = failingChecks([{ command: 'npm test', passed: false, output: OUTPUT }]);
    expect(plannerFailuresNote([])).toBeNull();
    expect(plannerFailuresNote(checks)).toContain('a success criterion may name the check ("npm test passes" then means no failure beyond these)');
    const thread: ThreadedContext = {
      plan_id: 'plan_X',
      goal: 'Add --json',
      step: { id: 'json', agent: 'coder', description: 'Add --json to src/cli.js', depends_on: [] },
      dependencies: [],
      relevant_files: [],
      previous_attempts: [],
      failing_before: checks,
    };
    const prompt = stepPrompt(thread);
    expect(prompt).toContain('# Checks that fail before this plan\nThese failed on the project before the plan began, not because of any step:\n- `npm test`:\n    not ok 3 - absolute zero offset in Kelvin');
    expect(prompt).toContain('They are not yours to fix unless your step says so; where these checks are run, expect these failures, and report any other.');
    expect(stepPrompt({ ...thread, failing_before: [] })).not.toContain('# Checks that fail before this plan');
  });

  it('should fall back to the lines that speak of a failure, then to the last lines', () => {
    expect(failingChecks([{ command: 'make', passed: false, output: 'hook "make" failed (exit 2):\nbuilding\nerror: missing header foo.h\ndone' }])[0]!.lines).toEqual(['error: missing header foo.h']);
    expect(failingChecks([{ command: 'make', passed: false, output: 'hook "make" failed (exit 2):\na\nb' }])[0]!.lines).toEqual(['a', 'b']);
  });
});
