import { afterEach, describe, expect, it } from 'vitest';
import type { PlanObserver } from '../../src/host/observers.js';
import { safeToast, safeToasts, toastFor, watchForToasts, type Toast } from '../../src/notices/toasts.js';
import type { PlanSummary } from '../../src/persistence/plan-index.js';
import { agendaOrca, removeDir, type AgendaOrca } from '../support/agenda-orca.js';

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
  it("should say when a step's changes did not apply, and what answers it, unless a call follows the plan", () => {
    const running = summary({});
    expect(toastFor(running, summary({ waiting_for: 'merge' }))).toEqual({
      title: "Orca: a step's changes did not apply",
      message: 'plan_X waits for Run again on top / Resolved by hand / Stop',
      variant: 'warning',
    });
    expect(toastFor(running, summary({ waiting_for: 'merge' }), { followed: true })).toBeNull();
    expect(toastFor(summary({ waiting_for: 'merge' }), summary({ waiting_for: 'merge' }))).toBeNull();
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
