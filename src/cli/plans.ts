import { activityCell } from '../persistence/plan-activity.js';
import { leaseHeld } from '../persistence/plan-lease.js';
import { summarize } from '../persistence/plan-index.js';
import type { CommandContext } from './command.js';
import { shortTime, table, truncate } from './format.js';
import { println } from './io.js';
import { loadAllPlans, storeOf } from './project.js';
import { totalTokens } from '../machines/usage.js';
import { formatCost, formatTokens } from '../usage/format.js';

/**
 * `orca plans`: the project's plans, newest first, read from their files. NOW says what each is doing:
 * waiting (for which gate), running (a process holds it), paused (work in flight, but nothing runs it) or -.
 */
export function plansCommand({ io, project }: CommandContext): number {
  const store = storeOf(project);
  const plans = loadAllPlans(store, (message) => println(io.stderr, `orca: quarantined: ${message}`))
    .map((file) => ({ ...summarize(file), usage: file.usage }))
    .sort((a, b) => (a.plan_id < b.plan_id ? 1 : -1)); // ULIDs sort by creation time
  if (plans.length === 0) {
    println(io.stdout, `No plans in ${store.dir}.`);
    return 0;
  }
  const rows = plans.map((p) => [
    p.plan_id,
    p.status,
    activityCell(p, leaseHeld(store.pathOf(p.plan_id))),
    truncate(p.goal, 48),
    `${p.step_progress.completed}/${p.step_progress.total}`,
    p.usage ? formatTokens(totalTokens(p.usage)) : '-',
    p.usage ? formatCost(p.usage.cost) : '-',
    shortTime(p.updated_at),
  ]);
  println(io.stdout, ...table(['PLAN', 'STATUS', 'NOW', 'GOAL', 'DONE', 'TOKENS', 'COST', 'UPDATED'], rows));
  return 0;
}
