import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyAgents } from '../../src/agents/apply.js';
import { offeredTools } from '../../src/agents/team-text.js';
import type { VerifyPlanInput } from '../../src/machines/ports.js';
import { opencodePorts } from '../../src/opencode/session-ports.js';
import { createTurnRunner } from '../../src/opencode/turn-runner.js';
import { VERIFIER_AGENT, verifyPort } from '../../src/opencode/verify-port.js';
import { fakeSessions } from '../support/fake-sessions.js';

// The first request of the planner and of a plan's verifying turn as the model reads them (issue 50):
// the tools OpenCode offers the agent, its system prompt (the agent's prompt as the config hook installs
// it, by default), then the turn's first prompt. Every sentence must be true for the request it is in.
// A coder's request is in requests-in-a-plan.test.ts (parallel-coder.md). Snapshots: ./__snapshots__/requests/.

const signal = new AbortController().signal;
const AGENTS = applyAgents({});

/** What the model reads: the tools it is offered (names; their texts are OpenCode's), the system prompt, the first prompt. */
function request(agent: 'planner' | typeof VERIFIER_AGENT, text: string): string {
  // OpenCode never offers `invalid` to a model, and 1.18 has no `list` tool (granted to the planner for versions that do).
  const tools = offeredTools(agent, AGENTS[agent].permission).filter((tool) => tool !== 'invalid' && tool !== 'list');
  return `tools: ${tools.join(', ')}\n\n---\n\n${AGENTS[agent].prompt}\n\n---\n\n${text}`;
}

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'orca-role-requests-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the planner's first request", () => {
  it('tells the planner what each specialist may do, how changes land, when to use the agenda and which tool hints do not apply', async () => {
    const fake = fakeSessions(() => ({ type: 'answer', content: 'hi' }));
    const ports = opencodePorts(fake.port, { turns: createTurnRunner(fake.port) });
    await ports.consultPlanner({ planId: 'plan_X', sessionId: 'ses_p', message: 'Document the CLI flags in README.md, with example output.' }, signal);
    const text = request('planner', fake.prompts[0]!.text);
    expect(text.split('\n')[0]).toBe('tools: read, glob, grep, orca_list_plans, orca_describe_plan, orca_ask_specialist, agenda');
    // The document-writer runs nothing, so the planner does not ask it to run the examples (issue 50, item 1).
    expect(text).toContain('- document-writer (documentation): reads, edits; no commands.');
    expect(text).toContain("Orca lands each step's changes in the user's working tree, uncommitted");
    expect(text).toContain('Use the agenda tool only when the request speaks of a time or an event');
    expect(text).toContain('The tool descriptions mention the Task and Bash tools, which you do not have');
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/planner.md');
  });
});

describe("a plan's verifying turn", () => {
  const input: VerifyPlanInput = {
    idempotencyKey: 'plan_X:verify:1',
    planId: 'plan_X',
    goal: 'Give the CLI --verbose and --help',
    verification: ['npm test passes', 'node cli.js --help prints the usage line'],
    commands: [],
    turn: true,
    steps: [
      { id: 's1', agent: 'coder', summary: 'Added --verbose to parseArgs' },
      { id: 's2', agent: 'coder', summary: 'Rewrote parseArgs as a switch with --help' },
      { id: 's3', agent: 'document-writer', summary: 'Documented --verbose and --help in README.md' },
    ],
    parentSessionId: 'ses_root',
    base: null,
    // The project's test failed before the plan began (issue 50, item 3): the turn is told, so it does not blame the plan.
    failing_before: [{ command: 'npm test', lines: ['not ok 3 - absolute zero offset in Kelvin', '# fail 1'] }],
  };

  it('is its own role, offered read, glob, grep and bash only, and says nothing it does not mean (issue 50, item 4)', async () => {
    const fake = fakeSessions(() => ({ type: 'success', summary: 'both hold', artifacts: [] }));
    await verifyPort(fake.port, createTurnRunner(fake.port, { isRecovering: () => false }), { directory: dir, commandTimeoutMs: 5_000, log: () => {} }).verifyPlan(input, signal);
    expect(fake.prompts.map((p) => p.agent)).toEqual(['verifier']);
    const text = request(VERIFIER_AGENT, fake.prompts[0]!.text);
    expect(text.split('\n')[0]).toBe('tools: bash, read, glob, grep');
    // Not a step: none of the step's words, nothing of the tools it lacks but the note that it lacks them.
    expect(text).not.toMatch(/one step of a plan|Do that step|not one of the plan's steps|orca_ask_specialist|orca_describe_plan/);
    expect(text).toContain('Change no file and commit nothing');
    expect(text).toContain('The tool descriptions mention the Edit, Write and Task tools, which you do not have');
    expect(text).toContain("# Checks that fail before this plan\nThese failed on the project before the plan began, not because of any step:\n- `npm test`:\n    not ok 3 - absolute zero offset in Kelvin");
    expect(text).toContain("An item holds when nothing fails beyond these: they are not the plan's.");
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/verifier.md');
  });
});
