import type { JournalEntry } from '../persistence/journal.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { gatesOf, type GateView } from './gate-view.js';
import type { QueuedDecision } from '../decisions/running-server.js';
import { graphView, type GraphView } from './graph-view.js';
import { progressOf, type Progress } from './progress.js';
import type { PlanRead } from './plan-source.js';
import { revisionsOf, type RevisionView } from './revisions-view.js';
import { rewindView, type RewindView } from './rewind-view.js';
import { stepView, type StepView } from './step-view.js';
import { timelineOf, type TimelineView } from './timeline-view.js';
import { usageOf, type RecordedUsage } from './usage.js';

/** Everything the plan page shows, computed from the plan file and its journal alone. */
export interface PlanView {
  plan_id: string;
  goal: string;
  status: PlanFile['status'];
  state: string;
  waiting_for: PlanFile['waiting_for'];
  created_at: string;
  updated_at: string;
  progress: Progress;
  usage?: RecordedUsage;
  dispatches?: { used: number; cap: number };
  gates: GateView[];
  /** Decisions posted to the inbox that no process has applied yet ("approval.approve posted …"). */
  queued: string[];
  graph: GraphView;
  steps: StepView[];
  assumptions: string[];
  risks: string[];
  verification: string[];
  relevant_files: string[];
  decisions: PlanFile['decisions'];
  timeline: TimelineView;
  revisions: RevisionView[];
  /** What it landed in the user's tree, its undos and redos, and which of Undo… and Redo… the page offers. */
  rewind: RewindView;
}

export function planView({ file, raw }: PlanRead, journal: readonly JournalEntry[], queued: readonly QueuedDecision[] = []): PlanView {
  const rewind = rewindView(file);
  const takenBack = new Map(rewind.landed.flatMap((l) => (l.undone_at ? [[l.step, l.undone_at] as const] : [])));
  const steps = file.steps.map((step) => {
    const view = stepView(file, raw, step);
    const at = takenBack.get(step.id);
    return at ? { ...view, taken_back_at: at } : view;
  });
  const usage = usageOf(raw.usage);
  const context = file.snapshot.context as { dispatches?: unknown; dispatch_cap?: unknown };
  const dispatches =
    typeof context.dispatches === 'number' && typeof context.dispatch_cap === 'number' ? { used: context.dispatches, cap: context.dispatch_cap } : undefined;
  return {
    plan_id: file.plan_id,
    goal: file.goal,
    status: file.status,
    state: file.state,
    waiting_for: file.waiting_for,
    created_at: file.created_at,
    updated_at: file.updated_at,
    progress: progressOf(file),
    ...(usage ? { usage } : {}),
    ...(dispatches ? { dispatches } : {}),
    gates: gatesOf(file, queued),
    queued: queued.map((q) => q.words),
    graph: graphView(
      steps.map(({ id, agent, status, depends_on, attempts, review, phase, taken_back_at }) => ({
        id,
        agent,
        status,
        depends_on,
        attempts,
        ...(review ? { review } : {}),
        ...(phase ? { phase } : {}),
        ...(taken_back_at ? { taken_back: true } : {}),
      })),
    ),
    steps,
    assumptions: file.assumptions,
    risks: file.risks,
    verification: file.verification,
    relevant_files: file.relevant_files,
    decisions: file.decisions,
    timeline: timelineOf(journal),
    revisions: revisionsOf(raw),
    rewind,
  };
}
