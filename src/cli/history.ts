import { readJournal, type JournalEntry } from '../persistence/journal.js';
import { shortTime, truncate } from './format.js';
import { usageText } from '../usage/format.js';
import type { Usage } from '../machines/usage.js';

/** The plan's journal, one line per entry in plain words: decisions, planner and step reports, states entered. */
export function historyLines(journalFile: string): string[] {
  // A turn's cost is on its own line; the event that adds it to the plan's sums says it again.
  const entries = readJournal(journalFile).filter((e) => !(e.kind === 'event' && e.event.type === 'usage.recorded'));
  if (entries.length === 0) return ['History', '  (no journal yet)'];
  return [`History (${entries.length} entries)`, ...entries.map((e) => `  ${shortTime(e.at)}  ${entryText(e)}`)];
}

export function entryText(entry: JournalEntry): string {
  switch (entry.kind) {
    case 'event':
      return eventText(entry.event, entry.source);
    case 'state':
      return `${entry.actor === 'plan' ? 'plan' : entry.actor.replace(/^step:/, 'step ')} → ${entry.state}`;
    case 'turn':
      return `${entry.role === entry.agent ? entry.agent : `${entry.role} (${entry.agent})`} turn${entry.correction ? ', a correction,' : ''}${entry.step_id ? ` for step ${entry.step_id}` : ''}: ${usageText(entry.usage)}`;
    case 'reconcile':
      return `after restart: ${entry.role} session ${entry.session_id}${entry.idempotency_key ? ` (${entry.idempotency_key})` : ''}: ${entry.decision}${entry.detail ? ` — ${entry.detail}` : ''}`;
    case 'coercion':
      return `${entry.role === entry.agent ? entry.agent : `${entry.role} (${entry.agent})`}'s answer${entry.step_id ? ` for step ${entry.step_id}` : ''} accepted with slips forgiven: ${entry.coerced.join('; ')}`;
    case 'protocol':
      return `${entry.agent}${entry.model ? ` (${entry.model})` : ''} switched to the text protocol: structured output refused in session ${entry.session_id} — ${truncate(entry.reason, 100)}`;
    default:
      return `unknown entry ${truncate(JSON.stringify(entry), 100)}`;
  }
}

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
  'budget.continue': ['Continue', 'dispatch cap'],
  'budget.stop': ['Stop', 'dispatch cap'],
};

/** Invoked actors of the plan chart, by name. */
const ACTORS: Record<string, string> = {
  openPlannerSession: "the planner's session",
  consultPlanner: 'the planner',
  revisePlan: 'the planner (revision)',
};

type Event = { type: string; [key: string]: unknown };

function eventText(event: Event, source: string): string {
  const by = BY[source] ? ` ${BY[source]}` : '';
  const quoted = (key: string) => (typeof event[key] === 'string' && event[key] ? `: "${truncate(event[key] as string, 80)}"` : '');
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
      return `plan created from "${truncate(String((event.input as { message?: unknown } | undefined)?.message ?? ''), 80)}"`;
    case 'plan.message':
      return `message for the planner${by}${quoted('message')}`;
    case 'question.answer':
      return `the planner's questions answered${by}: ${truncate(JSON.stringify(event.answers ?? []), 80)}`;
    case 'step.dispatched':
      return `step ${event.stepId}: attempt ${event.attempt} sent to its specialist`;
    case 'step.turn':
      return `step ${event.stepId}: ${event.kind === 'fix' ? 'fixer' : 'review'} round ${event.round}`;
    case 'step.completed':
      return `step ${event.stepId} completed: "${truncate(String((event.output as { summary?: unknown } | undefined)?.summary ?? ''), 80)}"`;
    case 'step.failed':
      return `step ${event.stepId} failed (attempt ${event.attempt})${quoted('error')}`;
    case 'usage.recorded':
      return `usage recorded${typeof event.stepId === 'string' ? ` for step ${event.stepId}` : ''}: ${usageText(event.usage as Usage)}`;
    case 'step.interrupted':
      return `step ${event.stepId}: attempt ${event.attempt} was interrupted by a restart`;
    default:
      return `${event.type}${by}${quoted('text')}`;
  }
}

function actorText(actor: string, failed: boolean, event: Event): string {
  const step = /^step:(.+)$/.exec(actor);
  if (step) return failed ? `step ${step[1]}'s chart failed: ${errorOf(event)}` : `step ${step[1]}'s chart ended`;
  const who = ACTORS[actor] ?? actor;
  if (failed) return `${who} failed: ${errorOf(event)}`;
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

function errorOf(event: Event): string {
  const error = event.error as { message?: unknown } | string | undefined;
  return truncate(typeof error === 'string' ? error : String(error?.message ?? 'unknown error'), 100);
}

/** The final states of the step chart: a step whose chart reached one has a duration. */
const STEP_FINAL_STATES = new Set(['completed', 'replanned', 'stopped']);

/** How long each finished step took, from the first state its chart entered to its final one (the journal's times). */
export function stepDurations(journalFile: string): Map<string, number> {
  const spans = new Map<string, { first: number; last: number; state: string }>();
  for (const entry of readJournal(journalFile)) {
    if (entry.kind !== 'state' || !entry.actor.startsWith('step:')) continue;
    const id = entry.actor.slice('step:'.length);
    const at = Date.parse(entry.at);
    if (Number.isNaN(at)) continue;
    const span = spans.get(id);
    if (span) Object.assign(span, { last: at, state: entry.state });
    else spans.set(id, { first: at, last: at, state: entry.state });
  }
  return new Map([...spans].filter(([, span]) => STEP_FINAL_STATES.has(span.state)).map(([id, { first, last }]) => [id, last - first]));
}

/** "850 ms", "4.2 s", "3 min 5 s", "2 h 4 min". */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
