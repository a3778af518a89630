import { describe, expect, it } from 'vitest';
import { INSTALLED_AGENT_IDS, SPECIALIST_AGENTS, agentMarker, applyAgents, findAgentMarker } from '../../src/agents/index.js';
import { PLANNER_EXAMPLES } from '../../src/agents/prompts/planner.js';
import { STEP_EXAMPLES } from '../../src/agents/prompts/specialists.js';
import { PlannerOutputSchema } from '../../src/protocol/planner-output.js';
import { SpecialistOutputSchema } from '../../src/protocol/specialist-output.js';

const installed = applyAgents({});

describe('agent prompts', () => {
  it.each(INSTALLED_AGENT_IDS)('%s starts with its marker line', (id) => {
    const prompt = installed[id].prompt;
    expect(prompt.split('\n')[0]).toBe(agentMarker(id));
    expect(findAgentMarker(`You are opencode.\n\n${prompt}`)).toBe(id);
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

  it("states the planner's protocol: one JSON object, answer | question | plan with every field", () => {
    const { prompt } = installed.planner;
    for (const word of [
      'exactly ONE JSON object',
      '"type":"answer"',
      '"type":"question"',
      '"type":"plan"',
      '"steps"',
      '"id"',
      '"agent"',
      '"description"',
      '"depends_on"',
      '"files"',
      '"success"',
      '"assumptions"',
      '"risks"',
      '"verification"',
      '"relevant_files"',
      '"header"',
      'orca_ask_specialist',
      'atomic',
      'StructuredOutput',
    ]) {
      expect(prompt).toContain(word);
    }
    for (const agent of SPECIALIST_AGENTS) expect(prompt).toContain(agent);
  });

  it.each(Object.entries(PLANNER_EXAMPLES))('shows a planner %s example that the protocol accepts', (_type, example) => {
    expect(PlannerOutputSchema.safeParse(example).success).toBe(true);
  });

  it.each(SPECIALIST_AGENTS)('states the step protocol to %s', (agent) => {
    const { prompt } = installed[agent];
    for (const word of ['exactly ONE JSON object', '"type":"success"', '"summary"', '"artifacts"', '"key_findings"', '"type":"failure"', '"error"', '"cause"', 'orca_ask_specialist', 'orca_describe_plan']) {
      expect(prompt).toContain(word);
    }
  });

  it.each(Object.entries(STEP_EXAMPLES))('shows a specialist %s example that the protocol accepts', (_type, example) => {
    expect(SpecialistOutputSchema.safeParse(example).success).toBe(true);
  });

  it('teaches the planner when to schedule with the agenda and to tell the user what it scheduled', () => {
    const { prompt } = installed.planner;
    for (const word of ['agenda_create', 'agenda_list', 'agenda_cancel', 'agenda_emit', 'agenda_events', 'agenda_pause', 'recurring or follow-up', 'agendaId', 'BLOCKED [rule]', 'only the user can resume']) {
      expect(prompt).toContain(word);
    }
  });

  it.each(SPECIALIST_AGENTS)('tells %s it may emit and list, not schedule', (agent) => {
    expect(installed[agent].prompt).toContain('agenda_emit');
    expect(installed[agent].prompt).toContain('agenda_list');
    expect(installed[agent].prompt).not.toContain('agenda_create');
  });

  it('tells the reviewer how a failed review reads', () => {
    expect(installed.reviewer.prompt).toContain('changes_required');
    expect(installed.reviewer.prompt).toContain('[ERROR-001]');
  });

  it.each(SPECIALIST_AGENTS)('tells the read-only %s twin to answer in prose, not the step protocol', (agent) => {
    const { prompt } = installed[`${agent}.readonly`];
    expect(prompt).toContain('read-only consultation');
    expect(prompt).not.toContain('"type":"success"');
  });
});
