import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FileChange } from '../machines/types.js';
import { rewindPlan, type RewindDeps, type RewindReport } from '../rewind/rewind-plan.js';
import { rewindText, type RewindHow } from '../rewind/rewind-words.js';
import { clip } from './access.js';
import { readJsonBody, sendError, sendJson, sendRequestFailure } from './http.js';
import { readPlan } from './plan-source.js';

/**
 * POST /api/plans/:id/undo `{apply, steps?}` and POST /api/plans/:id/redo `{apply}`: what `orca undo`
 * and `orca redo` do (src/rewind/rewind-plan.ts, channel "viewer"), in the page's words. Without
 * `apply` it is the dry run: what would change, nothing changed. The rewind chart decides; a refusal
 * is 409 with its words, a malformed request 400.
 */
export interface RewindAnswer {
  plan_id: string;
  direction: 'undo' | 'redo';
  state: 'previewed' | 'applied';
  /** The steps it takes back or puts back, newest landing first. */
  steps: string[];
  files: FileChange[];
  /** What it did or would do, in words (several lines). */
  text: string;
}

/** How the page says to go on (rewind-words.ts fills them into its sentences). */
export const VIEWER_HOW: RewindHow = {
  confirm: (report) => `press ${CONFIRM_LABEL[report.context.direction]}`,
  redo: () => 'Redo… on this page',
  undoSteps: (planId, steps) => `the plan's Undo… (every step), or orca undo ${planId}${steps.map((s) => ` --step ${s}`).join('')}`,
};

/** The label of the page's button that does what the dry run said. */
export const CONFIRM_LABEL = { undo: 'Take these changes back', redo: 'Put these changes back' } as const;

const MAX_BODY = 16_384;
const MAX_STEPS = 100;
const EXPECTED = {
  undo: 'Expected a JSON object {"apply": false, "steps"?: ["s1"]}: apply true takes the changes back, false only says what it would do; no steps means every step.',
  redo: 'Expected a JSON object {"apply": false}: apply true puts back what the last undo took, false only says what it would do.',
} as const;

export interface RewindRouteOptions {
  deps: RewindDeps;
  log: (level: 'warn', message: string) => void;
}

/** The route's handler; one rewind at a time per server (each takes the plan's lease, which a second one would find held). */
export function rewindRoute({ deps, log }: RewindRouteOptions) {
  let last: Promise<unknown> = Promise.resolve();
  return async function handleRewind(req: IncomingMessage, res: ServerResponse, planId: string, direction: 'undo' | 'redo'): Promise<void> {
    const body = await readJsonBody(req, MAX_BODY, EXPECTED[direction]);
    if (!body.ok) return sendError(res, body.status, body.message);
    const fields = parseFields(body.value, direction);
    if (typeof fields === 'string') return sendError(res, 400, fields);
    // The viewer leaves a plan file that does not load where it is (the store would quarantine it).
    const plan = readPlan(deps.store.dir, planId);
    if (!plan.ok) return sendError(res, 'missing' in plan ? 404 : 422, 'missing' in plan ? `Plan ${planId} does not exist in ${deps.store.dir}.` : `Plan ${planId} cannot be undone: ${plan.reason}`);
    const run = last.then(() => rewindPlan(deps, { planId, steps: fields.steps, direction, apply: fields.apply, channel: 'viewer' }));
    last = run.catch(() => {});
    try {
      answer(res, await run, log);
    } catch (error) {
      sendRequestFailure(res, error, (message) => log('warn', `plan viewer: the ${direction} of ${planId} failed: ${message}`));
    }
  };
}

function answer(res: ServerResponse, report: RewindReport, log: RewindRouteOptions['log']): void {
  const text = rewindText(report, VIEWER_HOW);
  const c = report.context;
  switch (report.state) {
    case 'previewed':
    case 'applied':
      return sendJson(res, 200, { plan_id: report.planId, direction: c.direction, state: report.state, steps: c.chosen, files: c.check?.files ?? [], text } satisfies RewindAnswer);
    case 'refused':
      return sendJson(res, 409, { error: text, refusal: c.refusal?.reason ?? null });
    case 'failed':
      log('warn', `plan viewer: the ${c.direction} of ${report.planId} failed: ${c.error ?? 'no reason given'}`);
      return sendError(res, 500, text);
  }
}

/** Bounded fields only, so no error message can echo more than ~100 characters of them. */
function parseFields(body: unknown, direction: 'undo' | 'redo'): { apply: boolean; steps: string[] } | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return EXPECTED[direction];
  const { apply, steps, ...rest } = body as Record<string, unknown>;
  const [other] = Object.keys(rest);
  if (other !== undefined) return `${EXPECTED[direction]} Got a field it does not take: ${JSON.stringify(clip(other, 60))}.`;
  if (typeof apply !== 'boolean') return `Expected "apply" to be true (do it) or false (only say what it would do).`;
  if (steps === undefined) return { apply, steps: [] };
  if (direction === 'redo') return 'A redo takes no "steps": it puts back what the last undo took.';
  if (!Array.isArray(steps) || steps.length > MAX_STEPS || !steps.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 100)) {
    return `Expected "steps" to be a list of at most ${MAX_STEPS} step ids (each 1 to 100 characters), or absent for every step.`;
  }
  return { apply, steps: [...new Set(steps as string[])] };
}
