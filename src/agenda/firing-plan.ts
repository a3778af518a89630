import { readFileSync } from 'node:fs';
import { activityOf } from '../persistence/plan-activity.js';
import { summarize } from '../persistence/plan-index.js';
import { leaseHeld } from '../persistence/plan-lease.js';
import { parsePlanFileText, PlanStore } from '../persistence/plan-store.js';
import type { PlanFile } from '../persistence/plan-file.js';
import type { AgendaItemView } from './view.js';
import { errorMessage } from '../errors.js';
import { isFinalPlanStatus } from '../machines/types.js';

/**
 * What became of the plan an item's last firing started (or resumed), read from its plan file and
 * its lease as they are now: the agenda's own log only says where the plan was when the firing
 * ended (`lastResult`). A plan whose server was killed while it ran is `interrupted`: work in
 * flight and no process holding it. It resumes from its saved state by the plans' own resume
 * path (orca_ask_planner with its plan_id), which an agenda `resume` firing takes too:
 * `orca agenda continue <agendaId>` schedules one now.
 */

export type FiringPlanNow = 'waiting' | 'running' | 'interrupted' | 'idle' | 'finished' | 'missing';

export interface FiringPlan {
  planId: string;
  now: FiringPlanNow;
  /** The plan's status (drafting, in_progress, completed…); absent when its file is gone. */
  status?: PlanFile['status'];
  /** The gate it waits at (approval, deviation, resume…). */
  waitingFor?: string;
  /** The steps whose work was in flight (running): where an interrupted plan stopped. */
  steps: string[];
  /** One line: "plan_… interrupted at step s2 (nothing runs it)". */
  words: string;
}

/** The plan file as it is, read only (a file that does not load is reported, never quarantined from here). */
function readPlan(projectDir: string, planId: string): { file: PlanFile; held: boolean } | { problem: string } {
  const store = PlanStore.forProject(projectDir);
  let path: string;
  try {
    path = store.pathOf(planId);
  } catch (error) {
    return { problem: errorMessage(error) };
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problem: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its file is gone (pruned or quarantined)' : errorMessage(error) };
  }
  const parsed = parsePlanFileText(text, planId);
  return parsed.ok ? { file: parsed.file, held: leaseHeld(path) } : { problem: `its file does not load: ${parsed.reason}` };
}

export function firingPlanOf(planId: string, file: PlanFile, held: boolean): FiringPlan {
  const steps = file.steps.filter((s) => s.status === 'running').map((s) => s.id);
  const base = { planId, status: file.status, steps };
  const where = steps.length > 0 ? ` at step${steps.length > 1 ? 's' : ''} ${steps.join(', ')}` : file.status === 'drafting' ? ' while the planner drafted it' : '';
  if (isFinalPlanStatus(file.status)) return { ...base, now: 'finished', words: `${planId} ${file.status}` };
  switch (activityOf(summarize(file), held)) {
    case 'waiting':
      return { ...base, now: 'waiting', waitingFor: file.waiting_for!, words: `${planId} waits for ${file.waiting_for}` };
    case 'running':
      return { ...base, now: 'running', words: `${planId} ${file.status === 'drafting' ? 'drafting' : 'running'}${where} (a server runs it)` };
    case 'paused':
      return { ...base, now: 'interrupted', words: `${planId} interrupted${where} (nothing runs it)` };
    case 'idle':
      return { ...base, now: 'idle', words: `${planId} ${file.status}` };
  }
}

/** The plan of the item's last firing, as it is now; null when the item's firings started no plan. */
export function firingPlan(projectDir: string, item: Pick<AgendaItemView, 'planId' | 'action'>): FiringPlan | null {
  if (!item.planId || (item.action.type !== 'plan' && item.action.type !== 'resume')) return null;
  const read = readPlan(projectDir, item.planId);
  if ('problem' in read) return { planId: item.planId, now: 'missing', steps: [], words: `${item.planId}: ${read.problem}` };
  return firingPlanOf(item.planId, read.file, read.held);
}

/** The command that resumes it from a shell (an agenda `resume` firing, due now), for an interrupted plan. */
export const continueCommand = (agendaId: string) => `orca agenda continue ${agendaId}`;
