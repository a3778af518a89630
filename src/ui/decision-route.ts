import type { IncomingMessage, ServerResponse } from 'node:http';
import { awaitDecision, DECISION_CHOICES, postGateDecision } from '../decisions/post-decision.js';
import { readJsonBody, sendError, sendJson, sendRequestFailure } from './http.js';

/**
 * POST /api/plans/:id/decision `{choice, text?, step?}`: the one way the page answers a gate, through
 * exactly the path of `orca decide` (validation, the plan's inbox, waiting for the running server).
 */
export interface DecisionRouteOptions {
  project: string;
  planId: string;
  /** How long to wait for a server holding the plan to apply it (orca decide waits 5 s). */
  waitMs: number;
  log: (level: 'warn', message: string) => void;
}

const MAX_BODY = 16_384;
const EXPECTED = 'Expected a JSON object {"choice": "approve", "text"?: "…", "step"?: "s1"}.';
const OUTCOME_WORDS = {
  applied: 'applied by the running server',
  'not-running': 'queued: applies when the plan is resumed (orca_ask_planner with its plan_id)',
  pending: 'queued: the process running the plan has not taken it yet; it applies when it does, or when the plan is resumed',
} as const;

export async function handleDecision(req: IncomingMessage, res: ServerResponse, { project, planId, waitMs, log }: DecisionRouteOptions): Promise<void> {
  const body = await readJsonBody(req, MAX_BODY, EXPECTED);
  if (!body.ok) return sendError(res, body.status, body.message);
  const fields = parseFields(body.value);
  if (typeof fields === 'string') return sendError(res, 400, fields);
  try {
    const decision = postGateDecision(project, { planId, ...fields }, new Date());
    const outcome = await awaitDecision(decision, waitMs);
    sendJson(res, 200, { summary: decision.summary, outcome, message: OUTCOME_WORDS[outcome], ...(decision.note ? { note: decision.note } : {}) });
  } catch (error) {
    sendRequestFailure(res, error, (message) => log('warn', `plan viewer: a decision for ${planId} failed: ${message}`));
  }
}

/** Bounded strings only, so no error message can echo more than ~100 characters of them. */
function parseFields(body: unknown): { choice: string; text?: string; step?: string } | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return EXPECTED;
  const { choice, text, step } = body as Record<string, unknown>;
  if (typeof choice !== 'string' || choice.length > 20) return `Expected "choice" to be one of ${DECISION_CHOICES.join(', ')}.`;
  if (text !== undefined && (typeof text !== 'string' || text.length > 4_000)) return 'Expected "text" to be a string of at most 4000 characters.';
  if (step !== undefined && (typeof step !== 'string' || step.length > 100)) return 'Expected "step" to be a step id of at most 100 characters.';
  return { choice, ...(text !== undefined ? { text } : {}), ...(step !== undefined ? { step } : {}) };
}
