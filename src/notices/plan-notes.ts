import { outcomeOf } from '../host/drive.js';
import type { PlanChange } from '../host/observers.js';
import type { PlanHost, PlanSnapshot } from '../host/plan-host.js';
import { diffSummary } from '../machines/plan-diff.js';
import { openGates, WAITING_WORDS, type Gate } from '../machines/gates.js';
import type { DecisionRecord } from '../machines/types.js';
import type { SessionNotes } from './session-notes.js';
import { commandsFor } from '../decisions/gate-commands.js';
import { changeSummary, conflictPaths } from '../text/step-diff.js';
import type { PlanFields } from '../persistence/plan-file.js';
import { formatCost } from '../usage/format.js';
import { stepLine } from './progress-title.js';
import { outcomeNote, reviewWords } from './outcome-note.js';
import { cutLine } from '../text/cut.js';

/**
 * What the session that owns a plan (its `caller_session_id`) is told when nobody follows the
 * plan there: an orca_ask_planner call reports its own outcome, but a plan decided by a slash
 * command or `orca decide` runs on with nobody watching. Its session is told of the decision and,
 * when the plan ends or stops at a gate, of that. The words come from the snapshot: its outcome
 * tag, its open gates, its steps.
 */

/** The plans an orca_ask_planner call follows in this process: their outcome is its tool result. */
export interface PlanFollowers {
  /** Marks the plan followed until the returned function is called. */
  follow(planId: string): () => void;
  has(planId: string): boolean;
  /**
   * Marks a plan whose orca_ask_planner call returned while it runs (detached): its session is told
   * of each step done, each gate it stops at and its outcome, until it ends. `done`: the ids of
   * the steps done already, not told again.
   */
  detach(planId: string, done: Iterable<string>): void;
  /** The steps of a detached plan told so far, or undefined when the plan is not detached. */
  detached(planId: string): Set<string> | undefined;
  /** The plan ended: nothing more to tell. */
  settle(planId: string): void;
}

export function planFollowers(): PlanFollowers {
  const count = new Map<string, number>();
  const told = new Map<string, Set<string>>();
  return {
    detach: (planId, done) => void told.set(planId, new Set(done)),
    detached: (planId) => told.get(planId),
    settle: (planId) => void told.delete(planId),
    follow(planId) {
      count.set(planId, (count.get(planId) ?? 0) + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const left = (count.get(planId) ?? 1) - 1;
        if (left > 0) count.set(planId, left);
        else count.delete(planId);
      };
    },
    has: (planId) => count.has(planId),
  };
}

/** One line of a model's text, never cut inside a word or a code span. */
const line = (text: string, max = 160) => cutLine(text, max);

/** Orca's words for where the plan is now: an outcome, or a gate it waits at; null while it runs. */
export function planNote(snapshot: PlanSnapshot, now: () => Date = () => new Date()): string | null {
  const c = snapshot.context;
  const id = c.plan_id;
  switch (outcomeOf(snapshot)) {
    case 'outcome.completed':
    case 'outcome.stopped':
      // What it did, checked and where it is, on one screen (outcome-note.ts); the summaries are in orca show.
      return outcomeNote(snapshot, { now: now() });
    case 'outcome.rejected':
      return `Orca: plan ${id} was rejected: ${line(c.goal ?? '', 100)}`;
    case 'outcome.failure':
      return `Orca: the planner could not go on with plan ${id}: ${line(c.planner_error ?? 'no reason given', 200)}. Ask Orca again about plan ${id} to retry.`;
    case 'outcome.answer':
      // In full: with the session free, no Orca turn relays it (hitl/session-gate.ts).
      return `Orca: the planner answered (plan ${id}):\n\n${c.answer ?? ''}`;
    case null: {
      const gate = openGates(snapshot)[0];
      return gate ? gateNote(gate) : null;
    }
  }
}

/** A plan waiting at a gate: what it waits for and how to answer, here or in the dialog. */
export function gateNote(gate: Gate): string {
  const id = gate.planId;
  const dialog = `ask Orca to continue plan ${id} to get the dialog`;
  const how = gate.kind === 'question' ? `Ask Orca to continue plan ${id} to answer them in the dialog.` : `Answer with ${commandsFor(gate).join(', ')}, or ${dialog}.`;
  return `Orca: plan ${id} waits for ${WAITING_WORDS[gate.kind]}${gateDetail(gate)}. ${how}`;
}

function gateDetail(gate: Gate): string {
  switch (gate.kind) {
    case 'approval':
      return gate.changes ? ` (revised: ${line(diffSummary(gate.changes).join('; '), 200)})` : ` (${gate.proposal.steps.length} steps)`;
    case 'question':
      return `: ${line(gate.questions.map((q) => q.question).join(' / '), 200)}`;
    case 'deviation':
      return `: step ${gate.stepId} (${gate.agent}) failed: ${line(gate.error, 200)}${gate.breaker ? ` (${gate.breaker})` : ''}`;
    case 'budget':
      return ` (${gate.dispatches} of ${gate.cap} dispatches used, ${gate.completed} of ${gate.total} steps done)`;
    case 'resume':
      return `: step ${gate.stepId} (${gate.agent}) was interrupted (${line(gate.detail, 120)})`;
    case 'merge': {
      const where = gate.conflicts.length ? `conflicts in ${conflictPaths(gate.conflicts)}` : line(gate.error ?? 'git named no conflicting file', 120);
      const changed = gate.diff ? `; it changed ${changeSummary(gate.diff)}` : '';
      const by = gate.worktree ? `; its worktree, to take them by hand: ${gate.worktree}` : '';
      return `: step ${gate.stepId} (${gate.agent}), attempt ${gate.attempt} (${where}${changed}${by})`;
    }
    case 'verification':
      return `: ${line(gate.verification.checks.filter((c) => !c.passed).map((c) => c.name).join('; '), 200)} failed in ${gate.verification.where ?? 'the project'}`;
  }
}

/** Where the plan goes after a decision, for the decision's reply or note; `reportedIn` is where its outcome will be posted, if anywhere. */
export function afterDecision(snapshot: PlanSnapshot, { followed, reportedIn }: { followed: boolean; reportedIn?: string }): string {
  if (outcomeOf(snapshot) !== null || openGates(snapshot).length > 0) return planNote(snapshot)!.replace(/^Orca: /, 'Now: ');
  if (followed) return 'The Orca turn that follows the plan goes on with it.';
  return reportedIn ? `It runs now; its outcome will be posted ${reportedIn}.` : 'It runs now; orca plans and orca show follow it.';
}

/** After Esc: the plan is saved where it was, and how to go on. `snapshot`: the plan as it was let go, if it was running here. */
export function pausedNote(planId: string, snapshot: PlanSnapshot | null): string {
  const c = snapshot?.context;
  const progress = c ? ` ${c.steps.filter((s) => s.output).length} of ${c.steps.length} steps done${runningWords(snapshot!)}` : '';
  return (
    `Orca: plan ${planId} is paused and saved${progress ? `:${progress}` : ''}. Nothing runs it until it is resumed: ` +
    `type /orca-resume ${planId} (or ask Orca to continue plan ${planId}) and it goes on from its saved state. orca show ${planId} shows where it stopped.`
  );
}

function runningWords(snapshot: PlanSnapshot): string {
  const running = snapshot.context.steps.filter((s) => s.status === 'running').map((s) => `${s.id} (${s.agent})`);
  if (snapshot.context.steps.length === 0) return ', the planner was at work';
  return running.length ? `, ${running.join(', ')} ${running.length === 1 ? 'was' : 'were'} running` : '';
}

const CHANNEL_WORDS: Partial<Record<DecisionRecord['channel'], string>> = { command: 'by a slash command in another session', cli: 'with orca decide' };

/** The note for the plan's session when a decision was made elsewhere. */
export function decisionNote(decision: DecisionRecord, snapshot: PlanSnapshot): string {
  const step = decision.step_id ? ` for step ${decision.step_id}` : '';
  const text = decision.text ? ` ("${line(decision.text, 100)}")` : '';
  const after = afterDecision(snapshot, { followed: false, reportedIn: 'here' });
  return `Orca: ${decision.option}${step} recorded for plan ${snapshot.context.plan_id} ${CHANNEL_WORDS[decision.channel] ?? `via ${decision.channel}`}${text}. ${after}`;
}

/**
 * A detached plan's step done: `Orca: plan_… · 2/6 done · $0.03 so far` then the step's line
 * (stepLine: what it cost) and its summary. `done`: the steps done with this one, as the notes
 * told them (two steps seen done at once are told 1/6 then 2/6); by default those the file says.
 */
export function stepDoneNote(
  file: Pick<PlanFields, 'plan_id' | 'steps' | 'usage'>,
  step: PlanFields['steps'][number],
  done = file.steps.filter((s) => s.status === 'completed').length,
): string {
  const running = file.steps.filter((s) => s.status === 'running').map((s) => `${s.id} (${s.agent})`);
  const next = running.length ? `; ${running.join(', ')} running` : '';
  const summary = step.output?.summary ? `: ${line(step.output.summary, 160)}` : '';
  // A failed review round (and the fix after it) is said as it happened, not only at the end.
  const review = reviewWords(step, step.review_round !== undefined);
  return `Orca: plan ${file.plan_id} · ${done}/${file.steps.length} done · ${formatCost(file.usage?.cost ?? 0)} so far${next}\n${stepLine(step)}${review ? ` · ${review}` : ''}${summary}`;
}

/**
 * An observer (it cannot block a plan's writes): after a slash command or `orca decide` answers a
 * plan that no orca_ask_planner call follows, its session hears of the decision (commands reply in
 * their own session; `orca decide` gets a note) and, once the plan ends or stops at a gate, of that.
 * A detached plan (its call returned once it ran: PlanFollowers.detach) tells its session of each
 * step done, each gate it stops at and its outcome, while no call follows it.
 */
export function watchForNotes(
  host: Pick<PlanHost, 'observe'>,
  { notes, followers, now = () => new Date() }: { notes: Pick<SessionNotes, 'post'>; followers: Pick<PlanFollowers, 'has' | 'detached' | 'settle'>; now?: () => Date },
): () => void {
  const startedAt = now().toISOString();
  const seen = new Map<string, number>(); // decisions of each plan already looked at
  const reporting = new Set<string>();
  return host.observe('the plan notes', ({ planId, after, file, snapshot }: PlanChange) => {
    // Decisions made before this process started were told by the process that applied them.
    const from = seen.get(planId) ?? countBefore(file.decisions, startedAt);
    const fresh = file.decisions.slice(from);
    seen.set(planId, file.decisions.length);
    const owner = after.caller_session_id;
    const told = followers.detached(planId);
    if (told && outcomeOf(snapshot) !== null && (!owner || followers.has(planId))) followers.settle(planId); // its call reports the outcome
    if (!owner || followers.has(planId)) return void reporting.delete(planId);
    if (told) return tellDetached(owner, planId, file, snapshot, told, fresh);
    const elsewhere = fresh.filter((d) => d.channel === 'command' || d.channel === 'cli');
    if (elsewhere.length > 0) {
      for (const d of elsewhere) if (d.channel === 'cli') notes.post(owner, decisionNote(d, snapshot));
      // A decision that ended the plan, or left it at a gate, said so in its reply.
      if (planNote(snapshot) === null) reporting.add(planId);
      else reporting.delete(planId);
      return;
    }
    if (!reporting.has(planId)) return;
    const note = planNote(snapshot);
    if (note === null) return;
    reporting.delete(planId);
    notes.post(owner, note);
  });

  /**
   * A plan followed in its session (its gates are asked there, note and dialog, by hitl/session-gate.ts):
   * each step done, each decision made in another terminal or the viewer (its dialog closes), and the outcome.
   */
  function tellDetached(owner: string, planId: string, file: PlanFields, snapshot: PlanSnapshot, told: Set<string>, fresh: DecisionRecord[]) {
    for (const step of file.steps) {
      if (step.status !== 'completed' || told.has(step.id)) continue;
      told.add(step.id);
      notes.post(owner, stepDoneNote(file, step, told.size));
    }
    for (const d of fresh.filter((d) => d.channel === 'cli')) notes.post(owner, recordedNote(d, planId));
    if (outcomeOf(snapshot) === null) return;
    followers.settle(planId);
    notes.post(owner, planNote(snapshot)!);
  }
}

/** "Orca: Approve recorded for plan_… with orca decide or the plan viewer ("text")." */
function recordedNote(decision: DecisionRecord, planId: string): string {
  const step = decision.step_id ? ` for step ${decision.step_id}` : '';
  const text = decision.text ? ` ("${line(decision.text, 100)}")` : '';
  return `Orca: ${decision.option}${step} recorded for plan ${planId} with orca decide or the plan viewer${text}.`;
}

function countBefore(decisions: DecisionRecord[], iso: string): number {
  const index = decisions.findIndex((d) => d.at >= iso);
  return index < 0 ? decisions.length : index;
}
