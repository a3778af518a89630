import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { findAgentMarker } from '../../src/agents/prompts/marker.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { lastToolResult, type RecordedRequest, type ScriptedReply } from '../support/scripted-model.js';

/** The built plugin, loaded the way a user's opencode.json loads a local file. */
export const builtPluginUrl = pathToFileURL(join(projectRoot, 'dist', 'index.js')).href;

/**
 * Plugin options for a file whose subject is not where steps work: its steps share the project
 * directory (git still measures their diffs). Each worktree costs its step an OpenCode instance
 * (seconds on this machine, `npm run bench` W-iso): the files about isolation (worktree*.e2e,
 * orca.e2e, quality-gate, tool-loop, usage) run with worktrees, the default.
 */
export const SHARED_TREE = { isolation: { mode: 'none' } } as const;

export const agentOf = (req: RecordedRequest) => findAgentMarker(req.system) ?? 'unknown';

/** The user-visible text of the request's latest user message (the prompt a session was given). */
export const promptOf = (req: RecordedRequest) => req.lastUser;

export type AgentScript = (req: RecordedRequest, turn: number) => ScriptedReply;

/**
 * A scripted team: one function per agent id, called with the request and how many requests that
 * agent has received so far (1-based). Unknown agents are an error the test sees.
 */
export function team(scripts: Record<string, AgentScript>) {
  const turns = new Map<string, number>();
  return (req: RecordedRequest): ScriptedReply => {
    const agent = agentOf(req);
    // The reviewer gate is on for coder steps by default: a team without a reviewer passes every review.
    const script = scripts[agent] ?? (agent === 'reviewer' && isReviewRequest(req) ? passingReviewer : undefined);
    if (!script) throw new Error(`no script for agent "${agent}"; system starts: ${req.system.slice(0, 120)}`);
    const turn = (turns.get(agent) ?? 0) + 1;
    turns.set(agent, turn);
    return script(req, turn);
  };
}

/** A quality-gate review request (see src/prompts/review-prompt.ts). */
export const isReviewRequest = (req: RecordedRequest) => req.lastUser.includes('# Quality gate: review of step');

/** A quality-gate fixer turn: the reviewer's errors sent back to the specialist's session (src/prompts/review-prompt.ts). */
export const isFixRequest = (req: RecordedRequest) => req.lastUser.includes('# Fix required: the reviewer failed your work');

const passingReviewer: AgentScript = () => jsonReply({ type: 'pass', summary: 'scripted reviewer: the work meets the criteria' });

/** A PASS for a quality-gate review request, for scripts whose scenarios are not about the reviewer. */
export const passingReview = (req: RecordedRequest): ScriptedReply | undefined =>
  agentOf(req) === 'reviewer' && isReviewRequest(req) ? passingReviewer(req, 0) : undefined;

/**
 * The text protocol (Orca's default): a reply that ends with one JSON object, after some prose
 * when given, as a model writes it.
 */
export const jsonReply = (value: unknown, prose?: string): ScriptedReply => ({
  text: `${prose ? `${prose}\n\n` : ''}${JSON.stringify(value)}`,
});

/**
 * Structured output, for agents configured with `output: "structured"`: a StructuredOutput call
 * (OpenCode's json_schema format tool) carrying `value`. The scripted model refuses it when the
 * request offers no such tool.
 */
export const structured = (value: unknown, text?: string): ScriptedReply => ({
  ...(text ? { text } : {}),
  toolCalls: [{ name: 'StructuredOutput', arguments: value }],
});

/** Orca relays the user's message to the planner once, then reports the tool's result. */
export function orcaRelay(message: string, planId?: string): AgentScript {
  return (req) => {
    const result = lastToolResult(req);
    if (result) return { text: `Result: ${result.content.slice(0, 200)}` };
    return { toolCalls: [{ name: 'orca_ask_planner', arguments: { message, ...(planId ? { plan_id: planId } : {}) } }] };
  };
}

/** Tests that share one scripted model tell their conversations apart by a `SCENARIO:name` tag. */
export const scenarioOf = (req: RecordedRequest) => /SCENARIO:(\w+)/.exec(JSON.stringify(req.messages))?.[1] ?? 'none';

/** How many user turns a request's conversation has (1 = the first prompt of its session). */
export const userTurns = (req: RecordedRequest) => req.messages.filter((m) => m.role === 'user').length;

/** Orca relays the user's message once (with `plan_id` when it says `RESUME plan_…`), then reports. */
export function orcaResumeRelay(req: RecordedRequest): ScriptedReply {
  if (lastToolResult(req)) return { text: 'relayed' };
  const planId = /RESUME (plan_\w+)/.exec(req.lastUser)?.[1];
  return { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser, ...(planId ? { plan_id: planId } : {}) } }] };
}
