/** What the graph check needs from a step. */
export interface PlanGraphStep {
  readonly id: string;
  readonly depends_on?: readonly string[] | undefined;
}

/** A problem with the plan's dependency graph; `path` is relative to the steps array. */
export interface PlanGraphProblem {
  readonly path: (string | number)[];
  readonly message: string;
}

/**
 * Checks that the steps form a DAG: unique ids, every dependency names another existing step,
 * and no cycles. Returns every problem found, in step order.
 */
export function findPlanGraphProblems(steps: readonly PlanGraphStep[]): PlanGraphProblem[] {
  const problems: PlanGraphProblem[] = [];
  const indexById = new Map<string, number>();

  steps.forEach((step, index) => {
    const first = indexById.get(step.id);
    if (first === undefined) indexById.set(step.id, index);
    else
      problems.push({
        path: [index, 'id'],
        message: `duplicate step id "${step.id}" (also used by steps[${first}]); expected unique ids`,
      });
  });

  const known = [...indexById.keys()].join(', ');
  steps.forEach((step, index) => {
    step.depends_on?.forEach((dependency, position) => {
      const path = [index, 'depends_on', position];
      if (dependency === step.id)
        problems.push({ path, message: `step "${step.id}" depends on itself; remove it from depends_on` });
      else if (!indexById.has(dependency))
        problems.push({
          path,
          message: `step "${step.id}" depends on unknown step "${dependency}"; expected one of: ${known}`,
        });
    });
  });

  for (const cycle of findCycles(steps, indexById)) {
    const start = cycle[0] as string;
    problems.push({
      path: [indexById.get(start) as number, 'depends_on'],
      message: `dependency cycle ${cycle.join(' → ')} (each step depends on the next); expected depends_on to form a DAG`,
    });
  }
  return problems;
}

/** Depth-first search over the valid edges; each back edge yields one cycle, closed (`a → b → a`). */
function findCycles(steps: readonly PlanGraphStep[], indexById: Map<string, number>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];

  const visit = (id: string): void => {
    state.set(id, 'visiting');
    stack.push(id);
    const step = steps[indexById.get(id) as number];
    for (const dependency of new Set(step?.depends_on ?? [])) {
      if (dependency === id || !indexById.has(dependency)) continue; // reported separately
      const seen = state.get(dependency);
      if (seen === 'visiting') cycles.push([...stack.slice(stack.indexOf(dependency)), dependency]);
      else if (seen === undefined) visit(dependency);
    }
    stack.pop();
    state.set(id, 'done');
  };

  for (const id of indexById.keys()) if (!state.has(id)) visit(id);
  return cycles;
}
