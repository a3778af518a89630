import { PLAN_MACHINE_VERSION } from '../machines/plan.machine.js';
import { WRITING_AGENTS } from '../machines/threading.js';
import { DEFAULT_PLAN_POLICY, type PlanPolicy, type StepPolicy } from '../machines/types.js';
import { SCHEMA_VERSION } from './plan-file.js';
import { OrcaError } from '../errors.js';

/**
 * Pure upgrades of a parsed plan file, keyed by the version they upgrade FROM. Each entry gets a
 * fixture in test/fixtures and a test that loads it.
 */
type Migration = (file: Record<string, unknown>) => Record<string, unknown>;

const schemaMigrations: Record<number, Migration> = {};
const machineMigrations: Record<number, Migration> = {
  /**
   * Machine 3 added the resume gate (steps: ask_before_rerun, interrupted, rerun_confirmed) and
   * plan revisions. A running step of machine 2 asks before re-running when it changes files, as
   * new steps do; a plan keeps no earlier versions.
   */
  2: (file) => {
    const snapshot = file.snapshot as { context: Record<string, unknown>; children?: Record<string, { snapshot?: { context?: Record<string, unknown> } }> };
    const children = Object.fromEntries(
      Object.entries(snapshot.children ?? {}).map(([id, child]) => {
        const context = child?.snapshot?.context;
        if (!context) return [id, child];
        const policy = context.policy as Record<string, unknown>;
        const writes = (WRITING_AGENTS as readonly unknown[]).includes(context.agent);
        return [id, { ...child, snapshot: { ...child.snapshot, context: { ...context, policy: { ...policy, ask_before_rerun: writes }, interrupted: null, rerun_confirmed: false } } }];
      }),
    );
    return { ...file, snapshot: { ...snapshot, context: { ...snapshot.context, revisions: [] }, children } };
  },
  /**
   * Machine 2 added the quality gate (policy, dispatch budget; steps: hooks, reviewer, breaker).
   * A plan from machine 1 keeps how it was proposed: no reviewer, no hooks, default limits, and
   * a fresh dispatch budget on top of what it already dispatched.
   */
  1: (file) => {
    const snapshot = file.snapshot as { context: Record<string, unknown>; children?: Record<string, { snapshot?: { context?: Record<string, unknown> } }> };
    const steps = (snapshot.context.steps ?? []) as Array<{ attempts?: number }>;
    // Nor the verification once every step landed (machine 3's policy added it; absent there means none).
    const { verify_commands: _commands, verify_turn: _turn, verify_old_failures: _old, ...defaults } = DEFAULT_PLAN_POLICY;
    const policy: PlanPolicy = { ...defaults, review_agents: [] };
    const dispatches = steps.reduce((n, s) => n + (s.attempts ?? 0), 0);
    const stepPolicy: Omit<StepPolicy, 'ask_before_rerun'> = {
      review: false,
      review_rounds: policy.review_rounds,
      same_error_limit: policy.same_error_limit,
      idle_ms: policy.idle_ms,
      pre_hooks: [],
      post_hooks: [],
    };
    const children = Object.fromEntries(
      Object.entries(snapshot.children ?? {}).map(([id, child]) => [
        id,
        child?.snapshot?.context
          ? {
              ...child,
              snapshot: {
                ...child.snapshot,
                context: {
                  ...child.snapshot.context,
                  policy: stepPolicy,
                  review: { session_id: null, round: 1, errors: [], signatures: [] },
                  breaker: null,
                  warnings: [],
                },
              },
            }
          : child,
      ]),
    );
    return {
      ...file,
      snapshot: {
        ...snapshot,
        context: { ...snapshot.context, policy, dispatches, dispatch_cap: dispatches + policy.max_dispatches },
        children,
      },
    };
  },
};

export class UnsupportedVersionError extends OrcaError {
  override name = 'UnsupportedVersionError';
}

function upgrade(
  file: Record<string, unknown>,
  key: 'schema_version' | 'machine_version',
  current: number,
  steps: Record<number, Migration>,
): Record<string, unknown> {
  let version = file[key];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new UnsupportedVersionError(`${key} is ${JSON.stringify(version)}: expected an integer from 1 to ${current}`);
  }
  if (version > current) {
    throw new UnsupportedVersionError(
      `${key} ${version} is newer than this plugin understands (${current}): upgrade opencode-orca-statecharts`,
    );
  }
  while (version < current) {
    const step = steps[version];
    if (!step) throw new UnsupportedVersionError(`no migration from ${key} ${version}`);
    file = { ...step(file), [key]: version + 1 };
    version += 1;
  }
  return file;
}

export function migratePlanFile(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UnsupportedVersionError('not a JSON object');
  }
  const file = raw as Record<string, unknown>;
  if (!('schema_version' in file) || !('snapshot' in file)) {
    throw new UnsupportedVersionError('not an Orca plan file (no schema_version or snapshot)');
  }
  const schemaUpgraded = upgrade(file, 'schema_version', SCHEMA_VERSION, schemaMigrations);
  return upgrade(schemaUpgraded, 'machine_version', PLAN_MACHINE_VERSION, machineMigrations);
}
