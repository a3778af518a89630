import { afterEach, describe, expect, it } from 'vitest';
import type { PlanObserver } from '../../src/host/observers.js';
import { safeToast, safeToasts, toastFor, watchForToasts, type Toast } from '../../src/notices/toasts.js';
import type { PlanSummary } from '../../src/persistence/plan-index.js';
import { agendaOrca, removeDir, type AgendaOrca } from '../support/agenda-orca.js';
import { mergePlan, tempProject, writesLanded, type Project } from '../cli/fixtures.js';
import { twoInterruptedPlan } from '../support/parallel-plans.js';
import { ONE_TURN } from '../support/turns.js';

/** What a model could write to take over a terminal: a colour, NUL, BEL, a one-byte CSI, a right-to-left override. */
const EVIL = '\x1b[31mred\x00\x07\u009b2J\u202Eevil';
const SHOWN = '␛[31mred␀␇[U+009B]2J[U+202E]evil';
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const summary = (patch: Partial<PlanSummary>): PlanSummary => ({
  plan_id: 'plan_X',
  goal: 'Add greet',
  status: 'in_progress',
  state: 'in_progress.running',
  step_progress: { completed: 0, total: 1 },
  waiting_for: null,
  busy: false,
  caller_session_id: null,
  updated_at: 't',
  ...patch,
});

describe('toasts for a plan that starts waiting', () => {
  let project: Project;
  afterEach(async () => project?.remove());
  /** A host of plans whose toasts are recorded as "title: message"; `followed` plans have a call asking their gates. */
  function watched(options: Parameters<Project['host']>[0] = {}, followed: (planId: string) => boolean = () => false) {
    project = tempProject();
    const host = project.host(options);
    const shown: string[] = [];
    watchForToasts(host, (t) => shown.push(`${t.title}: ${t.message}`), followed);
    return { host, shown };
  }

  it("should name each step whose changes did not apply, and what answers it, once", async () => {
    const { host, shown } = watched({ policy: { workspace: 'worktree' } });
    const planId = mergePlan(host);
    await writesLanded(host, planId);
    expect(shown).toEqual([`Orca: plan waits for approval: ${planId}: Add a greeting to the home page`, `Orca: step s1 (coder): its changes did not apply: ${planId} waits for Run again on top / Resolved by hand / Stop`]);
    // The plan changes again while it waits there: the same gate, no second toast.
    host.send(planId, { type: 'usage.recorded', usage: ONE_TURN } as never);
    await writesLanded(host, planId);
    expect(shown).toHaveLength(2);
    expect(toastFor(summary({}), summary({ waiting_for: 'merge' }))).toBeNull(); // the step's toast says it, not one per kind
  });

  it('should announce each of two steps a crash interrupted, not only the first, and none of a plan a call follows', async () => {
    const { host, shown } = watched();
    const planId = twoInterruptedPlan(host);
    await writesLanded(host, planId);
    expect(shown).toEqual([`Orca: step a (coder) was interrupted: ${planId} waits for Re-run / Mark done / Stop`, `Orca: step b (coder) was interrupted: ${planId} waits for Re-run / Mark done / Stop`]);
    // a answered: b still waits, told already.
    host.send(planId, { type: 'resume.rerun', stepId: 'a', channel: 'command', at: 't' });
    await writesLanded(host, planId);
    expect(shown).toHaveLength(2);

    const asked = watched({}, () => true);
    await writesLanded(asked.host, twoInterruptedPlan(asked.host));
    expect(asked.shown).toEqual([]);
  });
});

describe('control characters in a toast', () => {
  it('should show them visibly, the title on one line, the rest of the toast unchanged', () => {
    const toast: Toast = { title: `Orca: step ${EVIL}\nfailed`, message: `line 1 ${EVIL}\nline 2`, variant: 'warning', duration: 3000 };
    expect(safeToast(toast)).toEqual({ title: `Orca: step ${SHOWN} failed`, message: `line 1 ${SHOWN}\nline 2`, variant: 'warning', duration: 3000 });
  });

  it("should reach the port as safeToasts wraps it: a plan's goal and a step's error", () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => {}) };
    const shown: Toast[] = [];
    watchForToasts(host, safeToasts((t) => shown.push(t)));
    const step = (failures: Array<{ attempt: number; error: string }>) => ({ id: 's1', agent: 'coder', status: 'awaiting_decision', failures }) as never;
    const running = summary({ goal: `Greet ${EVIL}` });
    observer!({ snapshot: {} as never, planId: 'plan_X', before: running, after: running, file: { plan_id: 'plan_X', steps: [step([])] } as never });
    observer!({
      snapshot: {} as never,
      planId: 'plan_X',
      before: running,
      after: summary({ goal: `Greet ${EVIL}`, status: 'failed' }),
      file: { plan_id: 'plan_X', steps: [step([{ attempt: 1, error: `broke ${EVIL}` }])] } as never,
    });
    expect(shown.map((t) => t.message)).toEqual([`plan_X: Greet ${SHOWN}`, `plan_X, attempt 1: broke ${SHOWN}`]);
    // Unwrapped, the same toast would carry them raw: the wrapper is what keeps them out.
    expect(toastFor(running, summary({ goal: `Greet ${EVIL}`, status: 'failed' }))!.message).toMatch(UNSAFE);
  });
});

describe("Orca's toast port", () => {
  let wired: AgendaOrca | undefined;
  afterEach(async () => {
    await wired?.dispose();
    if (wired) removeDir(wired.dir);
    wired = undefined;
  });

  it('should show every toast safely, those of the idle reminder (orca.showToast) too', () => {
    wired = agendaOrca();
    wired.orca.showToast({ title: `Orca: ${EVIL}`, message: `waits ${EVIL}`, variant: 'info' });
    expect(wired.toasts).toEqual([{ title: `Orca: ${SHOWN}`, message: `waits ${SHOWN}`, variant: 'info' }]);
  });
});
