import { isGateCommand } from '../decisions/gate-commands.js';
import { countBetween, nextFirings } from './cron.js';
import { AgendaBlockedError } from './errors.js';
import { DAY_MS, HOUR_MS, type AgendaLimits } from './limits.js';
import { kindsOf } from './matching.js';
import type { AgendaReader, ItemRecord } from './store.js';
import type { Action, Trigger } from './schema.js';

/**
 * Safety rails (docs/design.md, "Safety rails"): synchronous pure functions over the store's
 * memory. Each refusal is an AgendaBlockedError whose message is exactly `BLOCKED [rule]: why`,
 * rule being the option name. "Pending" means not finished: pending or running (a cron item between
 * firings is pending).
 */

export interface CreateCandidate {
  trigger: Trigger;
  action: Action;
  /** The session that creates it. */
  sessionId?: string;
  depth: number;
}

/** The session an item belongs to: a command action's target session, else its creator's. */
export const sessionOf = (item: { action: Action; sessionId?: string }) =>
  item.action.type === 'command' ? item.action.sessionId : item.sessionId;

const active = (reader: AgendaReader) => reader.items().filter((r) => r.snapshot.status === 'active');
const block = (rule: keyof AgendaLimits | 'gate_command', why: string): never => {
  throw new AgendaBlockedError(rule, why);
};

/** Every rail a new item must pass, in the order of the table in docs/design.md, "Safety rails". */
export function checkCreate(reader: AgendaReader, candidate: CreateCandidate, limits: AgendaLimits, nowMs: number): void {
  checkGateCommands(candidate.action);
  const pending = active(reader);
  if (pending.length >= limits.max_pending_project) {
    block('max_pending_project', `${pending.length} items are pending in this project (limit ${limits.max_pending_project}); cancel some first`);
  }
  const session = sessionOf(candidate);
  if (session !== undefined) {
    const mine = pending.filter((r) => sessionOf(r.created) === session).length;
    if (mine >= limits.max_pending_per_session) {
      block('max_pending_per_session', `session ${session} has ${mine} pending items (limit ${limits.max_pending_per_session})`);
    }
  }
  checkSpacing(pending, candidate.trigger, limits, nowMs);
  if (candidate.trigger.type === 'event') {
    for (const kind of kindsOf(candidate.trigger)) {
      const listening = pending.filter((r) => r.created.trigger.type === 'event' && kindsOf(r.created.trigger).includes(kind)).length;
      if (listening >= limits.max_pending_per_event_kind) {
        block('max_pending_per_event_kind', `${listening} pending items already wait for "${kind}" (limit ${limits.max_pending_per_event_kind})`);
      }
    }
  }
  if (candidate.depth >= limits.max_cascade_depth) {
    block('max_cascade_depth', `this item would be cascade hop ${candidate.depth} (limit ${limits.max_cascade_depth}); the cascade stops here`);
  }
  if (candidate.action.type === 'plan') {
    const load = planLoad(reader, nowMs) + firingsWithinDay(candidate.trigger, nowMs);
    if (load > limits.max_plans_per_day) {
      block('max_plans_per_day', `it would bring the plans started or due within 24 hours to ${load} (limit ${limits.max_plans_per_day})`);
    }
  }
}

/** Time items keep min_interval_seconds apart; a cron item may not fire more often than that. */
function checkSpacing(pending: ItemRecord[], trigger: Trigger, limits: AgendaLimits, nowMs: number): void {
  const gap = limits.min_interval_seconds * 1000;
  if (trigger.type === 'time') {
    const at = Date.parse(trigger.executeAt);
    const near = pending.find((r) => r.created.trigger.type === 'time' && Math.abs(Date.parse(r.created.trigger.executeAt) - at) < gap);
    if (near) {
      const why = `${near.created.agendaId} is due within ${limits.min_interval_seconds} s of ${trigger.executeAt}; choose another time`;
      block('min_interval_seconds', why);
    }
  } else if (trigger.type === 'cron') {
    const runs = nextFirings(trigger, nowMs, 6);
    if (runs.length < 2) return; // a schedule that fires once more at most has no spacing to check
    const shortest = Math.min(...runs.slice(1).map((t, i) => t - runs[i]!));
    if (shortest < gap) {
      const why = `cron "${trigger.expression}" fires every ${shortest / 1000} s (at least ${limits.min_interval_seconds} s apart expected)`;
      block('min_interval_seconds', why);
    }
  }
}

/** Refused at create time and again at run time: an agenda item never answers a human gate. */
export function checkGateCommands(action: Action): void {
  if (action.type === 'schedule') return checkGateCommands(action.action);
  if (action.type !== 'command') return;
  const name = action.command.replace(/^\//, '').toLowerCase();
  if (isGateCommand(name)) {
    block('gate_command', `/${name} answers a human gate; an agenda item never does (an LLM is never a gate)`);
  }
  if (name === 'agenda-resume') block('gate_command', '/agenda-resume is for a human: no item resumes a paused agenda');
}

/** Session emits in the last hour: the agenda tool's emit and the emit actions of the session's items. */
export function checkEmit(reader: AgendaReader, sessionId: string | undefined, limits: AgendaLimits, nowMs: number): void {
  if (sessionId === undefined) return;
  const since = nowMs - HOUR_MS;
  const count = reader.bus().filter((e) => e.sessionId === sessionId && Date.parse(e.at) > since).length;
  if (count >= limits.max_emits_per_session_per_hour) {
    const why = `session ${sessionId} emitted ${count} events in the last hour (limit ${limits.max_emits_per_session_per_hour})`;
    block('max_emits_per_session_per_hour', why);
  }
}

/** At run time: plan firings started in the last 24 hours. */
export function checkPlanStart(reader: AgendaReader, limits: AgendaLimits, nowMs: number): void {
  const started = planStartsSince(reader, nowMs - DAY_MS);
  if (started >= limits.max_plans_per_day) {
    block('max_plans_per_day', `${started} plans were started by the agenda in the last 24 hours (limit ${limits.max_plans_per_day})`);
  }
}

const planStartsSince = (reader: AgendaReader, sinceMs: number) =>
  reader
    .items()
    .filter((r) => r.created.action.type === 'plan')
    .reduce((n, r) => n + r.lines.filter((l) => l.type === 'agenda.started' && Date.parse(l.at) > sinceMs).length, 0);

/** Plans started in the last 24 hours, plus those pending: one per one-shot item, a cron item's firings in the next 24 hours. */
function planLoad(reader: AgendaReader, nowMs: number): number {
  const pending = reader
    .items()
    .filter((r) => r.created.action.type === 'plan' && r.snapshot.value === 'pending')
    .reduce((n, r) => n + firingsWithinDay(r.created.trigger, nowMs), 0);
  return planStartsSince(reader, nowMs - DAY_MS) + pending;
}

function firingsWithinDay(trigger: Trigger, nowMs: number): number {
  return trigger.type === 'cron' ? countBetween(trigger, nowMs, nowMs + DAY_MS) : 1;
}
