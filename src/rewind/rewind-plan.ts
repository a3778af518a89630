import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createActor, fromPromise, toPromise } from 'xstate';
import { rewindMachine, type RewindContext, type RewindInput, type RewindStep } from '../machines/rewind.machine.js';
import { appendJournal } from '../persistence/journal.js';
import type { PlanFile, UndoRecord } from '../persistence/plan-file.js';
import { acquireLease, LEASE_STALE_MS, PlanLeaseError } from '../persistence/plan-lease.js';
import { parsePlanId } from '../persistence/plan-id.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { RefusedError } from '../request-errors.js';
import type { GitRepository } from '../workspace/support.js';
import { applyRewind, checkRewind, finishRewind, readIntent, recoverRewind, rewindPatch, type RewindIntent } from '../workspace/rewind.js';
import { writeFileAtomic } from '../workspace/write-atomic.js';

/**
 * One undo or redo of a plan's landed changes (docs/design.md, "What the user gets at the end"),
 * from any channel (`orca undo`, `/orca-undo`, the viewer): under the plan's lease, a rewind left
 * half done by a crash is finished or put back first, then the rewind chart decides and its ports
 * check and change the user's tree; what it did is recorded in the plan file (`undos`) and journal.
 */

export interface RewindDeps {
  store: PlanStore;
  /** The project's repository; null without git (nothing was recorded then). */
  repo: GitRepository | null;
  /** The workspace include list: never part of a snapshot of the user's tree. */
  include: readonly string[];
  now?: () => Date;
}

export interface RewindRequest {
  planId: unknown;
  /** The steps to take back (empty: the plan's). A redo takes none: it puts back the last undo. */
  steps: string[];
  direction: 'undo' | 'redo';
  apply: boolean;
  channel: UndoRecord['channel'];
}

/** A rewind a crash cut short, found and settled before this one (the next start says which way). */
export interface Recovered {
  planId: string;
  direction: 'undo' | 'redo';
  steps: string[];
  outcome: 'completed' | 'rolled_back';
  /** Files neither as before nor as after (changed by someone since): left as they are. */
  left: string[];
}

export interface RewindReport {
  planId: string;
  state: 'previewed' | 'applied' | 'refused' | 'failed';
  context: RewindContext;
  recovered: Recovered | null;
  /** Whether git is there: without it, nothing was recorded to take back. */
  git: boolean;
}

/** Where a plan's rewind in progress says what it writes, and where the patch of each rewind is kept: beside its steps' patches. */
const patchesDir = (store: PlanStore, planId: string) => join(store.dir, `${planId}.patches`);
export const intentPathOf = (store: PlanStore, planId: string) => join(patchesDir(store, planId), 'rewind.intent.json');

/** Runs one rewind request to its end. A plan another process holds (a server running it) is refused. */
export async function rewindPlan(deps: RewindDeps, request: RewindRequest): Promise<RewindReport> {
  const planId = parsePlanId(request.planId);
  if (!deps.store.exists(planId)) throw new RefusedError(`No plan ${planId} in ${deps.store.dir}.`);
  const release = await leaseOf(deps.store, planId);
  try {
    const recovered = await settleInterrupted(deps, planId);
    const file = deps.store.load(planId);
    const input = rewindInput(file, request);
    const actor = createActor(
      rewindMachine.provide({
        actors: {
          checkRewind: fromPromise(async ({ input: check }) => checkRewind(need(deps.repo), check.patches, { include: deps.include })),
          applyRewind: fromPromise(async ({ input: apply }) => {
            const repo = need(deps.repo);
            const n = (file.undos?.length ?? 0) + 1;
            const patchPath = join(patchesDir(deps.store, planId), `${apply.direction}-${n}.patch`);
            await writeFileAtomic(patchPath, await rewindPatch(repo, apply.check));
            const record: Omit<UndoRecord, 'at'> = { kind: apply.direction, steps: apply.steps, channel: request.channel, files: apply.check.files, patch_path: patchPath };
            const intentPath = intentPathOf(deps.store, planId);
            const intent = await applyRewind(repo, intentPath, { plan_id: planId, direction: apply.direction, steps: apply.steps, record }, apply.check);
            recordRewind(deps, intent);
            await finishRewind(intentPath);
          }),
        },
      }),
      { input },
    );
    actor.start();
    await toPromise(actor);
    const snapshot = actor.getSnapshot();
    return { planId, state: snapshot.value as RewindReport['state'], context: snapshot.context, recovered, git: deps.repo !== null };
  } finally {
    release();
  }
}

/**
 * Every plan's rewind a crash cut short, settled (at the start of a server, or of `orca undo`): each
 * file put back as before, or, when all were done, recorded as done. Plans another process holds wait
 * for that process.
 */
export async function settleInterruptedRewinds(deps: RewindDeps): Promise<Recovered[]> {
  if (!deps.repo || !existsSync(deps.store.dir)) return [];
  const plans = readdirSync(deps.store.dir)
    .map((name) => /^(plan_[0-9A-Z]{26})\.patches$/.exec(name)?.[1])
    .filter((id): id is string => id !== undefined && existsSync(intentPathOf(deps.store, id)));
  const settled: Recovered[] = [];
  for (const planId of plans) {
    let release: () => void;
    try {
      release = await leaseOf(deps.store, planId);
    } catch {
      continue; // held by a live process: it settles it
    }
    try {
      const recovered = await settleInterrupted(deps, planId);
      if (recovered) settled.push(recovered);
    } finally {
      release();
    }
  }
  return settled;
}

/** Under the plan's lease: its rewind cut short, if any, finished (recorded) or put back. */
async function settleInterrupted(deps: RewindDeps, planId: string): Promise<Recovered | null> {
  const intentPath = intentPathOf(deps.store, planId);
  if (!deps.repo || !existsSync(intentPath)) return null;
  const intent = await readIntent<Omit<UndoRecord, 'at'>>(intentPath);
  // An intent that does not read was cut short while it was written: nothing was changed after it.
  if (!intent) {
    await finishRewind(intentPath);
    return null;
  }
  const { outcome, left } = await recoverRewind(deps.repo, intent);
  if (outcome === 'completed' && !recorded(deps.store.load(planId), intent)) recordRewind(deps, intent);
  await finishRewind(intentPath);
  return { planId, direction: intent.direction, steps: intent.steps, outcome, left };
}

/** The rewind in the plan file (`undos`) and its journal. */
function recordRewind(deps: RewindDeps, intent: RewindIntent<Omit<UndoRecord, 'at'>>): void {
  const at = (deps.now?.() ?? new Date()).toISOString();
  const record: UndoRecord = { at, ...intent.record };
  const file = deps.store.load(intent.plan_id);
  deps.store.save({ ...file, undos: [...(file.undos ?? []), record] }, { fsync: true });
  appendJournal(deps.store.journalPathOf(intent.plan_id), [{ at, kind: 'rewind', direction: record.kind, steps: record.steps, channel: record.channel, files: record.files.length }]);
}

/** Whether the plan file already has this rewind (a crash came after it was recorded, before its intent went). */
const recorded = (file: PlanFile, intent: RewindIntent<Omit<UndoRecord, 'at'>>) => file.undos?.some((u) => u.patch_path === intent.record.patch_path) ?? false;

/** The chart's input from the plan file: each step's landing, what undos took back since, the last undo a redo would put back. */
export function rewindInput(file: PlanFile, request: Pick<RewindRequest, 'steps' | 'direction' | 'apply'>): RewindInput {
  const { undone, stack } = undoState(file.undos ?? []);
  const steps: RewindStep[] = file.steps.map((s) => ({
    id: s.id,
    depends_on: s.depends_on,
    ...(s.diff?.landed ? { landed: { at: s.diff.landed.at, patch_path: s.diff.landed.patch_path } } : {}),
    undone: undone.has(s.id),
  }));
  const last = stack.at(-1);
  return {
    planId: file.plan_id,
    status: file.status,
    steps,
    asked: request.steps,
    direction: request.direction,
    lastUndo: last ? { steps: last.steps, patch_path: last.patch_path } : null,
    apply: request.apply,
  };
}

/** Which steps are out of the tree now, and the undos a redo would put back, last on top. */
export function undoState(records: readonly UndoRecord[]): { undone: Set<string>; stack: UndoRecord[] } {
  const undone = new Set<string>();
  const stack: UndoRecord[] = [];
  for (const record of records) {
    if (record.kind === 'undo') {
      stack.push(record);
      for (const id of record.steps) undone.add(id);
    } else {
      stack.pop();
      for (const id of record.steps) undone.delete(id);
    }
  }
  return { undone, stack };
}

/**
 * The plan's lease, waited for while it may be a dead process's (one killed mid-undo: its lock goes
 * stale seconds later); a live holder keeps it fresh, and the rewind is refused.
 */
async function leaseOf(store: PlanStore, planId: string): Promise<() => void> {
  const deadline = Date.now() + LEASE_STALE_MS + 2_000;
  for (;;) {
    try {
      return acquireLease(store.pathOf(planId), planId, () => {});
    } catch (error) {
      if (!(error instanceof PlanLeaseError)) throw error;
      if (Date.now() > deadline)
        throw new RefusedError(`Plan ${planId} is open in a running OpenCode server (it runs or waits there): undo takes back a plan that has ended. Let it end, or stop it, then try again.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function need(repo: GitRepository | null): GitRepository {
  if (!repo) throw new RefusedError('The project is not in a git repository: Orca recorded no landed change to take back.');
  return repo;
}

