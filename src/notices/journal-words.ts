import type { JournalEntry } from '../persistence/journal.js';
import type { Usage } from '../machines/usage.js';
import { usageText } from '../usage/format.js';

/**
 * A plan's journal in plain words, one line per entry: `orca show`'s history and the viewer's
 * journal say each entry with these same functions.
 */

/**
 * Which entries neither view shows. An xstate event is the machine talking to itself: it is shown
 * (in words, never by its name) only when it says what no other entry says: the plan's creation
 * (`xstate.init`), what the planner's session and turns returned, and any actor's failure. So these
 * are left out: a step chart's end (the step's own report and final state are already there), a
 * usage event (the turn's own line says what it cost), and every other `xstate.*` event.
 */
export function isNoise(entry: JournalEntry): boolean {
  if (entry.kind !== 'event') return false;
  const { type } = entry.event;
  if (type === 'usage.recorded') return true;
  if (!type.startsWith('xstate.')) return false;
  if (type === 'xstate.init' || type.startsWith('xstate.error.actor.')) return false;
  const done = /^xstate\.done\.actor\.(.+)$/.exec(type);
  return !(done && done[1]! in ACTORS);
}

export function entryText(entry: JournalEntry): string {
  switch (entry.kind) {
    case 'event':
      return eventText(entry.event, entry.source);
    case 'state':
      return `${entry.actor === 'plan' ? 'plan' : entry.actor.replace(/^step:/, 'step ')} → ${entry.state}`;
    case 'turn':
      return turnText(entry);
    case 'reconcile':
      return `after restart: ${entry.role} session ${entry.session_id}${entry.idempotency_key ? ` (${entry.idempotency_key})` : ''}: ${entry.decision}${entry.detail ? ` — ${entry.detail}` : ''}`;
    case 'coercion':
      return `${roleText(entry)}'s answer${entry.step_id ? ` for step ${entry.step_id}` : ''} accepted with slips forgiven: ${entry.coerced.join('; ')}`;
    case 'protocol':
      return `${entry.agent}${entry.model ? ` (${entry.model})` : ''} switched to the text protocol: structured output refused in session ${entry.session_id} — ${clip(entry.reason, 100)}`;
    case 'rewind':
      return `${entry.direction === 'undo' ? 'undo: took' : 'redo: put'} the changes of ${entry.steps.join(', ')} ${entry.direction === 'undo' ? 'back out of' : 'back in'} your working tree (${entry.files} file${entry.files === 1 ? '' : 's'}, ${REWIND_BY[entry.channel] ?? `via ${entry.channel}`})`;
    default:
      return `unknown entry ${clip(JSON.stringify(entry), 100)}`;
  }
}

/**
 * A prompt and what it cost; a prompt stopped before it answered (Esc, a server stopping) and
 * what of its turn the plan has not counted yet; or that count, once a resumed plan made it.
 */
function turnText(entry: Extract<JournalEntry, { kind: 'turn' }>): string {
  const step = entry.step_id ? ` for step ${entry.step_id}` : '';
  if (entry.counted) return `${roleText(entry)} turn${step}, stopped earlier: ${usageText(entry.counted)} now counted in the plan's usage`;
  const turn = `${roleText(entry)} turn${entry.correction ? ', a correction,' : ''}${step}`;
  if (!entry.aborted) return `${turn}: ${usageText(entry.usage)}`;
  const uncounted = entry.uncounted ? `; the plan counts its turn's ${usageText(entry.uncounted)} when it resumes` : '';
  if (entry.usage.turns === 0) return `${turn} stopped between prompts${uncounted}`;
  return `${turn}, stopped before it answered: ${usageText(entry.usage)}${uncounted}`;
}

/** One line, at most `max` characters, with an ellipsis when cut. */
function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** "planner", or "specialist (coder)": the role is named only when it is not the agent's. */
const roleText = (entry: { role: string; agent: string }) => (entry.role === entry.agent ? entry.agent : `${entry.role} (${entry.agent})`);

/** Who asked for an undo or redo. */
const REWIND_BY: Record<string, string> = { cli: 'with orca undo', command: 'by slash command', viewer: 'in the plan viewer' };

/** Who decided, in the words of the channels: "in the question dialog", "by slash command", … */
const BY: Record<string, string> = {
  question: 'in the question dialog',
  permission: 'at the permission prompt',
  command: 'by slash command',
  cli: 'with orca decide',
  auto: 'by the auto policy',
  tool: 'through orca_ask_planner',
};

/** The decision events: which option at which gate. */
const DECISIONS: Record<string, [option: string, gate: string]> = {
  'approval.approve': ['Approve', 'approval'],
  'approval.request_changes': ['Request Changes', 'approval'],
  'approval.reject': ['Reject', 'approval'],
  'deviation.retry': ['Retry', 'failed step'],
  'deviation.replan': ['Replan', 'failed step'],
  'deviation.stop': ['Stop', 'failed step'],
  'resume.rerun': ['Re-run', 'interrupted step'],
  'resume.mark_done': ['Mark done', 'interrupted step'],
  'resume.stop': ['Stop', 'interrupted step'],
  'merge.rerun': ['Run again on top', 'merge'],
  'merge.resolved': ['Resolved by hand', 'merge'],
  'merge.stop': ['Stop', 'merge'],
  // The gate pauses at any limit of the budget: dispatches, money or tokens (the event does not say which).
  'budget.continue': ['Continue', 'budget'],
  'budget.stop': ['Stop', 'budget'],
  'verification.replan': ['Replan', 'failed verification'],
  'verification.accept': ['Accept as is', 'failed verification'],
  'verification.stop': ['Stop', 'failed verification'],
};

/** Invoked actors of the plan chart, by name: the only ones whose end is shown. */
const ACTORS: Record<string, string> = {
  openPlannerSession: "the planner's session",
  consultPlanner: 'the planner',
  revisePlan: 'the planner (revision)',
  verifyPlan: "the plan's verification",
};

type Event = { type: string; [key: string]: unknown };

function eventText(event: Event, source: string): string {
  const by = BY[source] ? ` ${BY[source]}` : '';
  const quoted = (key: string) => (typeof event[key] === 'string' && event[key] ? `: "${clip(event[key] as string, 80)}"` : '');
  const decision = DECISIONS[event.type];
  if (decision) {
    const [option, gate] = decision;
    const step = typeof event.stepId === 'string' ? ` (step ${event.stepId})` : '';
    return `${option} at the ${gate} gate${step}${by}${quoted('text')}`;
  }
  const done = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
  if (done) return actorText(done[2]!, done[1] === 'error', event);
  switch (event.type) {
    case 'xstate.init':
      return `plan created from "${clip(String((event.input as { message?: unknown } | undefined)?.message ?? ''), 80)}"`;
    case 'plan.message':
      return `message for the planner${by}${quoted('message')}`;
    case 'question.answer':
      return `the planner's questions answered${by}: ${clip(JSON.stringify(event.answers ?? []), 80)}`;
    case 'step.dispatched':
      return `step ${event.stepId}: attempt ${event.attempt} sent to its specialist`;
    case 'step.turn':
      return `step ${event.stepId}: ${event.kind === 'fix' ? 'fixer' : 'review'} round ${event.round}`;
    case 'step.completed':
      return `step ${event.stepId} completed: "${clip(String((event.output as { summary?: unknown } | undefined)?.summary ?? ''), 80)}"`;
    case 'step.landed':
      return `step ${event.stepId} done in the shared tree, its changes measured meanwhile: "${clip(String((event.output as { summary?: unknown } | undefined)?.summary ?? ''), 80)}"`;
    case 'step.failed':
      return `step ${event.stepId} failed (attempt ${event.attempt})${quoted('error')}`;
    case 'usage.recorded':
      return `usage recorded${typeof event.stepId === 'string' ? ` for step ${event.stepId}` : ''}: ${usageText(event.usage as Usage)}`;
    case 'step.merge_conflict': {
      const conflicts = Array.isArray(event.conflicts) ? (event.conflicts as Array<{ path?: unknown }>).map((c) => String(c.path)) : [];
      return `step ${event.stepId}: attempt ${event.attempt}'s changes did not apply${conflicts.length ? ` (conflicts in ${clip(conflicts.join(', '), 100)})` : ''}`;
    }
    case 'step.interrupted':
      return `step ${event.stepId}: attempt ${event.attempt} was interrupted by a restart`;
    default:
      return `${event.type}${by}${quoted('text')}`;
  }
}

function actorText(actor: string, failed: boolean, event: Event): string {
  const step = /^step:(.+)$/.exec(actor);
  if (step) return failed ? `step ${step[1]}'s chart failed: ${eventErrorText(event)}` : `step ${step[1]}'s chart ended`;
  const who = ACTORS[actor] ?? `the plan's task ${actor}`;
  if (failed) return `${who} failed: ${eventErrorText(event)}`;
  type Output = { type?: unknown; sessionId?: unknown; steps?: unknown[]; questions?: unknown[] };
  // A turn's outcome comes with what it cost: `{ value, usage }`.
  const raw = event.output as (Output & { value?: Output; usage?: unknown }) | undefined;
  const output = raw && 'value' in raw && 'usage' in raw ? raw.value : raw;
  if (actor === 'openPlannerSession') return `${who} opened: ${String(output?.sessionId ?? '?')}`;
  if (output?.type === 'plan') return `${who} proposed a plan of ${output.steps?.length ?? 0} step(s)`;
  if (output?.type === 'question') return `${who} asked ${output.questions?.length ?? 0} question(s)`;
  if (output?.type === 'answer') return `${who} answered without a plan`;
  return `${who} finished`;
}

function eventErrorText(event: Event): string {
  const error = event.error as { message?: unknown } | string | undefined;
  return clip(typeof error === 'string' ? error : String(error?.message ?? 'unknown error'), 100);
}
