import { describe, expect, it } from 'vitest';
import { INSTALLED_AGENT_IDS, SPECIALIST_AGENTS, agentMarker, applyAgents, findAgentMarker } from '../../src/agents/index.js';
import { plannerPolicyText } from '../../src/agents/prompts/planner.js';
import { DEFAULT_PLAN_POLICY } from '../../src/machines/types.js';
import { AGENT_IDS, KNOWN_TOOLS, ROLE_TOOLS } from '../../src/agents/roles.js';
import { roleTools } from '../../src/agents/permissions.js';

const installed = applyAgents({});
/** With `"agenda": {"tools": false}`: no agent has the agenda's tool. */
const withoutAgenda = applyAgents({}, {}, { agenda: false });

describe('agent prompts', () => {
  it.each(INSTALLED_AGENT_IDS)('%s starts with its marker line', (id) => {
    const prompt = installed[id].prompt;
    expect(prompt.split('\n')[0]).toBe(agentMarker(id));
    expect(findAgentMarker(`You are opencode.\n\n${prompt}`)).toBe(id);
  });

  it("tells orca what 'asking' and 'running' results mean only when orca_ask_planner returns early (ask_planner_returns: early)", () => {
    expect(installed.orca.prompt).not.toContain('running:');
    expect(installed.orca.prompt).not.toContain('asking:');
    expect(installed.orca.prompt).toContain('your tool call returns once it is settled');
    const detached = applyAgents({}, {}, { detach: true }).orca.prompt;
    expect(detached).toContain('- running: the user approved the plan and it runs on its own');
    expect(detached).toContain('It has no result yet');
    expect(detached).toContain("- asking: the plan waits for the user's decision");
    expect(detached).toContain('Do not repeat, summarise or judge the plan');
    expect(detached).not.toContain('your tool call returns once it is settled');
  });

  it('finds no marker in a prompt that has none', () => {
    expect(findAgentMarker('You are opencode, an interactive CLI tool.')).toBeUndefined();
  });

  it('tells orca to relay verbatim with its three tools and to leave decisions to the plugin', () => {
    const { prompt } = installed.orca;
    for (const word of ['orca_ask_planner', 'orca_list_plans', 'orca_describe_plan', 'VERBATIM', 'plan_id', 'Never approve']) {
      expect(prompt).toContain(word);
    }
    expect(prompt).not.toMatch(/orca_ask_specialist|\bbash\b/);
  });

  // The answer's format is stated once per request, in its output protocol section (test/prompts/first-requests.test.ts).
  it.each(['planner', ...SPECIALIST_AGENTS] as const)('leaves the output format to the request: %s has no shape nor example', (id) => {
    const { prompt } = installed[id];
    expect(prompt).toContain('ends with an "# Output protocol" section');
    expect(prompt).not.toMatch(/"type":"(answer|question|success|failure|pass|fail)"|"steps"|"summary"|"artifacts"/);
    expect(prompt).not.toContain('StructuredOutput');
  });

  it('tells the planner how to decompose work and which specialists there are', () => {
    const { prompt } = installed.planner;
    for (const word of ['orca_ask_specialist', 'atomic', '`depends_on`', '`files`', '`success`', '`idempotent: true`']) expect(prompt).toContain(word);
    for (const agent of SPECIALIST_AGENTS) expect(prompt).toContain(agent);
  });

  it('names only tools the planner is given', () => {
    const { prompt } = installed.planner;
    const named = KNOWN_TOOLS.filter((tool) => tool.includes('_') && prompt.includes(tool));
    expect(named.filter((tool) => !ROLE_TOOLS.planner.includes(tool))).toEqual([]);
    // OpenCode 1.18 offers no `list` tool: the planner looks around with read, glob and grep.
    expect(prompt).toContain('Look\naround with read, glob and grep;');
    expect(prompt).not.toMatch(/\bgrep,? (and )?list\b/);
  });

  it("tells the planner what the plugin does by itself, by default: the coder's review, retries, the dispatch cap", () => {
    const { prompt } = installed.planner;
    expect(prompt).toContain('- Quality gate: when a coder step finishes, a reviewer checks its work');
    expect(prompt).toContain('in up to 3 review rounds: after a failing round the same coder fixes what the reviewer reported and the reviewer looks again; a failing last round fails the step. Never add a reviewer step to review that work');
    expect(prompt).toContain('Retry (until the step has failed 10 times)');
    expect(prompt).toContain('the same error 3 times in a row');
    expect(prompt).toContain('after 100 dispatches');
    expect(prompt).not.toMatch(/reviewer step after risky|Before every step|After every step/);
  });

  it('names the agenda to the planner by default in one line, when to use it: a request that speaks of a time or an event (issue 50)', () => {
    const { prompt } = installed.planner;
    const lines = prompt.split('\n\n').filter((paragraph) => /\bagenda tool\b|schedul/i.test(paragraph));
    expect(lines).toEqual(['Use the agenda tool only when the request speaks of a time or an event (later, daily, when a plan\nends); it runs nothing now.']);
    expect(withoutAgenda.planner.prompt).not.toContain('Use the agenda tool');
  });

  it('tells the planner with agenda.tools false only that scheduling is off and how the user turns it on', () => {
    const { prompt } = withoutAgenda.planner;
    expect(prompt).toContain('Scheduling work for later or on events (the agenda) is off in this project.');
    expect(prompt).toContain('"agenda": {"tools": true} in\n.opencode/orca.jsonc');
    expect(prompt.length - installed.planner.prompt.length).toBeLessThan(300);
  });

  it.each(SPECIALIST_AGENTS)('tells %s nothing of the agenda', (agent) => {
    expect(installed[agent].prompt).not.toContain('agenda');
    expect(withoutAgenda[agent].prompt).toBe(installed[agent].prompt);
  });

  it.each(AGENT_IDS.flatMap((id) => [[id, true], [id, false]] as const))('%s names only tools it is given (agenda.tools %s)', (id, agenda) => {
    const { prompt } = (agenda ? installed : withoutAgenda)[id];
    const named = KNOWN_TOOLS.filter((tool) => tool.includes('_') && new RegExp(`\\b${tool}\\b`).test(prompt));
    expect(named.filter((tool) => !roleTools(id, { agenda }).includes(tool))).toEqual([]);
  });

  it('tells the reviewer what to check, not a format of its own (a plan step and the quality gate ask theirs)', () => {
    const { prompt } = installed.reviewer;
    for (const word of ['syntax', 'imports', 'types', 'logic', 'security', 'every success criterion', 'never guesses']) expect(prompt).toContain(word);
    expect(prompt).not.toMatch(/changes_required|\[ERROR-001\]/);
  });

  it.each(SPECIALIST_AGENTS)('tells the read-only %s twin to answer in prose, not the step protocol', (agent) => {
    const { prompt } = installed[`${agent}.readonly`];
    expect(prompt).toContain('read-only consultation');
    expect(prompt).not.toContain('"type":"success"');
  });
});

describe("the planner's policy paragraph", () => {
  const text = (policy: Partial<typeof DEFAULT_PLAN_POLICY>, maxAttempts = 10) => plannerPolicyText({ policy: { ...DEFAULT_PLAN_POLICY, ...policy }, maxAttempts });

  it('says when the quality gate is off, and that reviewer steps are then the planner\'s to add', () => {
    const off = text({ review_agents: [] });
    expect(off).toContain('- Quality gate: off.');
    expect(off).toContain('add a reviewer step after code changes that need a review');
    expect(off).not.toContain('Never add a reviewer step');
  });

  it('names the agents the gate covers and its rounds', () => {
    expect(text({ review_agents: ['coder', 'tester', 'document-writer'], review_rounds: 2 })).toContain(
      "when a coder, tester or document-writer step finishes, a reviewer checks its work (its diff; in its worktree, running the checks named) against the step's description and success criterion " +
        'in up to 2 review rounds: after a failing round the same coder, tester or document-writer fixes what the reviewer reported and the reviewer looks again; a failing last round fails the step.',
    );
  });

  it('says that with one review round nobody fixes what the reviewer reported: the step fails (issue 35.2)', () => {
    const one = text({ review_agents: ['coder', 'tester'], review_rounds: 1 });
    expect(one).toContain(
      "when a coder or tester step finishes, a reviewer checks its work (its diff; in its worktree, running the checks named) against the step's description and success criterion once; a failing review fails the step. Never add a reviewer step",
    );
    expect(one).not.toMatch(/fixes what the reviewer reported|review round/);
  });

  it('lists the pre and post step hooks, and says nothing of hooks when there are none', () => {
    const hooks = text({ pre_hooks: ['npm run lint'], post_hooks: ['npm test', 'git status'] });
    expect(hooks).toContain('- Before every step it runs "npm run lint"; a failure blocks the step.');
    expect(hooks).toContain('- After every step it runs "npm test", "git status"; a failure is recorded, never blocks.');
    expect(text({})).not.toMatch(/Before every step|After every step/);
  });

  it('follows the retry limit, the breaker and the budget', () => {
    const limits = text({ same_error_limit: 5, max_dispatches: 40, max_cost: 2.5, max_tokens: 1_000_000 }, 1);
    expect(limits).toContain('Retry (until the step has failed 1 time)');
    expect(limits).toContain('the same error 5 times in a row');
    expect(limits).toContain('after 40 dispatches (specialist, reviewer and fixer turns), a cost of 2.5 or 1000000 tokens');
  });

  it('reaches the planner through applyAgents, and survives a prompt of the user', () => {
    const policy = { ...DEFAULT_PLAN_POLICY, review_agents: [] };
    const { planner } = applyAgents({ agent: { planner: { prompt: 'You plan Rust work only.' } } }, {}, { planning: { policy, maxAttempts: 4 } });
    expect(planner.prompt).toContain('You plan Rust work only.');
    expect(planner.prompt).toContain('- Quality gate: off.');
    expect(planner.prompt).toContain('Retry (until the step has failed 4 times)');
  });
});
