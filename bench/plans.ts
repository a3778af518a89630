// Plan fixtures shared by the benchmarks: what the scripted planner proposes.
import type { SpecialistId } from '../src/machines/types.js';

const AGENTS: SpecialistId[] = ['coder', 'tester', 'reviewer', 'researcher'];
/**
 * The agents of layeredDag's steps: only file-changing specialists, since those are the steps that
 * get their own git worktree (isolation `worktree`, the default); a researcher's or reviewer's step
 * reads the user's tree and would never measure a worktree.
 */
export const DAG_AGENTS: SpecialistId[] = ['coder', 'tester', 'document-writer'];

export interface BenchStep {
  id: string;
  agent: SpecialistId;
  description: string;
  depends_on: string[];
  files?: string[];
}

export interface BenchPlan {
  type: 'plan';
  goal: string;
  steps: BenchStep[];
  assumptions: string[];
  risks: string[];
  verification: string[];
}

const plan = (goal: string, steps: BenchStep[]): BenchPlan => ({
  type: 'plan',
  goal,
  steps,
  assumptions: ['benchmark fixture'],
  risks: ['none'],
  verification: ['every step reports success'],
});

/**
 * `layers` layers of `width` steps; every step of layer k depends on all steps of layer k-1.
 * The critical path is `layers` steps long. Every step is a file-changing one (DAG_AGENTS, in turn).
 */
export function layeredDag(layers: number, width: number, agents: SpecialistId[] = DAG_AGENTS): BenchPlan {
  const steps: BenchStep[] = [];
  for (let l = 0; l < layers; l++) {
    for (let w = 0; w < width; w++) {
      steps.push({
        id: `l${l + 1}w${w + 1}`,
        agent: agents[w % agents.length]!,
        description: `Layer ${l + 1} task ${w + 1}: change module m${w + 1} as the earlier layer decided.`,
        // Declared, disjoint files: in a shared tree (isolation `none`) the scheduler may still run the
        // layer's file-changing steps together, as it does with worktrees.
        files: [`src/m${w + 1}.ts`],
        depends_on: l === 0 ? [] : Array.from({ length: width }, (_, i) => `l${l}w${i + 1}`),
      });
    }
  }
  return plan(`Benchmark DAG: ${layers} layers of ${width} steps`, steps);
}

/** `n` steps, each depending on the previous one. */
export function chain(n: number): BenchPlan {
  const steps: BenchStep[] = Array.from({ length: n }, (_, i) => ({
    id: `s${i + 1}`,
    agent: AGENTS[i % AGENTS.length]!,
    description: `Chain step ${i + 1}: extend the work of the previous step.`,
    depends_on: i === 0 ? [] : [`s${i}`],
  }));
  return plan(`Benchmark chain of ${n} steps`, steps);
}

/** The same size of result for every step, so prompt growth can only come from the orchestration. */
export function stepResult(stepId: string) {
  return {
    type: 'success' as const,
    summary: `Step ${stepId} done: the module now handles the new case and its callers were updated.`,
    artifacts: [`src/${stepId}.ts`],
    key_findings: [`${stepId}: the public API is unchanged`],
  };
}

/** The 3-step plan of test/e2e/orca.e2e.test.ts (two independent steps, then one that needs both). */
export function orcaE2ePlan(): BenchPlan {
  return {
    type: 'plan',
    goal: 'Add a greet() function with docs and a test',
    steps: [
      { id: 'impl', agent: 'coder', description: 'Create src/greet.ts exporting greet(name)', depends_on: [] },
      { id: 'docs', agent: 'document-writer', description: 'Document greet() in README.md', depends_on: [] },
      { id: 'test', agent: 'tester', description: 'Test greet() against its docs', depends_on: ['impl', 'docs'] },
    ],
    assumptions: ['TypeScript project'],
    risks: ['none'],
    verification: ['npm test passes'],
  };
}
