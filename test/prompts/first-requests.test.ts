import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyAgents } from '../../src/agents/apply.js';
import type { OutputProtocol } from '../../src/protocol/output-protocol.js';
import { describeShape } from '../../src/protocol/expected-shape.js';
import type { ThreadedContext } from '../../src/machines/types.js';
import type { SpecialistAgent } from '../../src/schemas/specialist-agents.js';
import { qualityPorts } from '../../src/opencode/quality-ports.js';
import { opencodePorts } from '../../src/opencode/session-ports.js';
import { createTurnRunner } from '../../src/opencode/turn-runner.js';
import { PlannerOutputSchema } from '../../src/schemas/planner-output.js';
import { ReviewOutputSchema } from '../../src/schemas/review-output.js';
import { SpecialistOutputSchema } from '../../src/schemas/specialist-output.js';
import { fakeSessions } from '../support/fake-sessions.js';

// What a model is told about its answer's format, per role: once per request, in the first prompt's
// output protocol section, never again in the agent's system prompt or the request's body.

const thread: ThreadedContext = {
  plan_id: 'plan_X',
  goal: 'Greet people',
  step: { id: 'impl', agent: 'coder', description: 'Write greet()', success: 'greet("") returns a greeting' },
  dependencies: [{ id: 'docs', agent: 'researcher', output: { summary: 'read the docs', artifacts: [], key_findings: ['names may be empty'] } }],
  relevant_files: ['src/greet.ts'],
  previous_attempts: [],
};
const reviewError = { id: 'ERROR-001', category: 'Logic', file: 'src/greet.ts', line: 2, issue: 'empty name', found: 'x', expected: 'y', fix: 'z' };
const signal = new AbortController().signal;
const success = { type: 'success', summary: 'done', artifacts: [] };

type Union = z.ZodDiscriminatedUnion<z.ZodObject[]>;
const variantTypes = (schema: Union) => schema.options.map((variant) => (variant.shape.type as z.ZodLiteral<string>).value);
const examplesOf = (schema: Union) => schema.options.map((variant) => JSON.stringify((variant.meta()?.examples as unknown[])[0]));

/** The agent's system prompt and the first prompt its turn sends, as OpenCode would get them. */
async function firstRequest(role: 'planner' | 'specialist' | 'reviewer step' | 'reviewer gate' | 'fixer', protocol: OutputProtocol) {
  const fake = fakeSessions(() => (role === 'planner' ? { type: 'answer', content: 'hi' } : role === 'reviewer gate' ? { type: 'pass', summary: 'ok' } : success));
  const turns = createTurnRunner(fake.port, { protocolOf: () => protocol });
  const ports = opencodePorts(fake.port, { turns });
  const quality = qualityPorts(fake.port, { directory: process.cwd(), hookTimeoutMs: 1000, idle: { waitIdle: async () => {} }, log: () => {}, turns });
  const key = 'plan_X:impl:1';
  let agent: 'planner' | SpecialistAgent;
  if (role === 'planner') {
    agent = 'planner';
    await ports.consultPlanner({ planId: 'plan_X', sessionId: 'ses_p', message: 'Make greet() handle empty names.' }, signal);
  } else if (role === 'specialist' || role === 'reviewer step') {
    agent = role === 'specialist' ? 'coder' : 'reviewer';
    const step = { ...thread.step, agent };
    await ports.runSpecialist({ sessionId: 'ses_s', agent, thread: { ...thread, step }, idempotencyKey: key, rerun: true }, signal);
  } else if (role === 'reviewer gate') {
    agent = 'reviewer';
    await quality.runReview({ sessionId: 'ses_r', thread, work: { summary: 'wrote greet', artifacts: ['src/greet.ts'], key_findings: [] }, round: 1, maxRounds: 3, idempotencyKey: `${key}:review:1` }, signal);
  } else {
    agent = 'coder';
    await quality.runFix({ sessionId: 'ses_c', agent, thread, errors: [reviewError], round: 1, rerun: true, idempotencyKey: `${key}:fix:1` }, signal);
  }
  expect(fake.prompts).toHaveLength(1);
  const system = applyAgents({})[agent].prompt;
  return { system, user: fake.prompts[0]!.text };
}

const count = (text: string, part: string) => text.split(part).length - 1;

const roles = [
  ['planner', PlannerOutputSchema],
  ['specialist', SpecialistOutputSchema],
  ['reviewer step', SpecialistOutputSchema],
  ['reviewer gate', ReviewOutputSchema],
  ['fixer', SpecialistOutputSchema],
] as const;
const cases = roles.flatMap(([role, schema]) => (['text', 'structured'] as const).map((protocol) => [role, protocol, schema] as const));

describe("each role's first request", () => {
  it.each(cases)('%s (%s protocol): states the format once, with one example per answer type, all from the schema', async (role, protocol, schema) => {
    const { system, user } = await firstRequest(role, protocol);
    const request = `${system}\n\n${user}`;
    expect(count(request, '# Output protocol\n')).toBe(1);
    expect(count(request, protocol === 'text' ? 'End your reply with one JSON object' : 'Call the StructuredOutput tool')).toBe(1);
    expect(user.endsWith(examplesOf(schema as Union).join('\n'))).toBe(true);
    for (const line of describeShape(z.toJSONSchema(schema, { unrepresentable: 'any' })).split('\n')) expect(count(request, line)).toBe(1);
    for (const example of examplesOf(schema as Union)) expect(count(request, example)).toBe(1);
    // Each answer type is named twice in the request: in its shape line and in its example (the system
    // prompt names none: test/agents/prompts.test.ts).
    for (const type of variantTypes(schema as Union)) expect(count(user, `"type":"${type}"`)).toBe(2);
  });
});
