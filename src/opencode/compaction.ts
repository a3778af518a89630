import type { AgendaItemView } from '../agenda/view.js';
import type { PlanSummary } from '../persistence/plan-index.js';
import { describeTrigger, describeAction } from '../agenda/describe.js';
import { isFinalPlanStatus } from '../machines/types.js';

/**
 * What `experimental.session.compacting` adds to a session's summary: its unfinished plans and
 * the pending agenda items, read from the plan files and the agenda (never from the transcript,
 * which compaction is about to replace), so Orca continues with the right plan_id afterwards.
 */

const MAX_PLANS = 20;
const MAX_ITEMS = 20;

export function compactionContext(sessionID: string, plans: PlanSummary[], items: AgendaItemView[]): string | null {
  const unfinished = plans.filter((p) => p.caller_session_id === sessionID && !isFinalPlanStatus(p.status));
  const pending = items.filter((i) => (i.status === 'pending' || i.status === 'running') && (i.sessionId === undefined || i.sessionId === sessionID));
  if (unfinished.length === 0 && pending.length === 0) return null;
  const lines = ['Orca state to keep in the summary (from the plugin\'s plan files and agenda, not from this conversation):'];
  if (unfinished.length > 0) {
    lines.push('Unfinished Orca plans of this session: continue each with orca_ask_planner and its plan_id.');
    for (const p of unfinished.slice(0, MAX_PLANS)) {
      lines.push(
        `- plan_id ${p.plan_id}; goal: ${one(p.goal, 160)}; status: ${p.status}; waiting_for: ${p.waiting_for ?? 'nothing'}; progress: ${p.step_progress.completed}/${p.step_progress.total} steps done`,
      );
    }
    if (unfinished.length > MAX_PLANS) lines.push(`- and ${unfinished.length - MAX_PLANS} more (orca_list_plans)`);
  }
  if (pending.length > 0) {
    lines.push('Pending agenda items of this session (they fire by themselves; /agenda lists them all):');
    for (const i of pending.slice(0, MAX_ITEMS)) {
      lines.push(`- ${i.agendaId} (${i.status}): ${describeTrigger(i.trigger, i.nextDueAt)} → ${describeAction(i.action)}; reason: ${one(i.reason, 120)}`);
    }
    if (pending.length > MAX_ITEMS) lines.push(`- and ${pending.length - MAX_ITEMS} more`);
  }
  return lines.join('\n');
}

const one = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
