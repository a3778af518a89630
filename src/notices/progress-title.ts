import type { PlanObserver } from '../host/observers.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { formatCost, formatTokens } from '../usage/format.js';
import { totalTokens } from '../machines/usage.js';
import type { ToolPart, ToolProgress, ToolTitlePort } from '../opencode/tool-title.js';
import { errorMessage } from '../errors.js';

/**
 * `plan_… · 2/5 done · impl (coder) running · $0.12`: where a plan stands and what it cost so far,
 * as the title of the orca_ask_planner call that follows it (docs/design.md, "Usage and cost").
 */
export function progressTitle(file: Pick<PlanFile, 'plan_id' | 'status' | 'steps' | 'waiting_for' | 'usage'>): string {
  const parts = [file.plan_id];
  const done = file.steps.filter((s) => s.status === 'completed').length;
  if (file.steps.length > 0) parts.push(`${done}/${file.steps.length} done`);
  const running = file.steps.filter((s) => s.status === 'running');
  if (file.waiting_for) parts.push(`waits for ${file.waiting_for}`);
  else if (running.length > 0) parts.push(`${running.map((s) => `${s.id} (${s.agent})`).join(', ')} running`);
  else parts.push(file.status.replace('_', ' '));
  parts.push(formatCost(file.usage?.cost ?? 0));
  return parts.join(' · ');
}

type ProgressFile = Pick<PlanFile, 'plan_id' | 'status' | 'steps' | 'waiting_for' | 'usage'>;
type ProgressStep = PlanFile['steps'][number];

/** At most this many step lines: the TUI at 100x30 keeps the call's line, the prompt and a dialog on screen. */
export const MAX_PROGRESS_STEPS = 10;

const MARKS: Record<ProgressStep['status'], string> = {
  completed: '✓',
  running: '▶',
  awaiting_decision: '!',
  awaiting_resume: '!',
  awaiting_merge: '!',
  stopped: '✗',
  pending: '·',
};
const STATUS_WORDS: Record<ProgressStep['status'], string> = {
  completed: 'done',
  running: 'running',
  awaiting_decision: 'failed, waits for you',
  awaiting_resume: 'interrupted, waits for you',
  awaiting_merge: 'changes did not apply, waits for you',
  stopped: 'stopped',
  pending: 'waiting',
};

/** `✓ impl (coder) done · $0.04 · 12,345 tokens`: one step, with what its turns cost so far. */
export function stepLine(step: ProgressStep): string {
  const attempt = step.status === 'running' && step.attempts > 1 ? ` (attempt ${step.attempts})` : '';
  const spent = step.usage && step.usage.turns > 0 ? ` · ${formatCost(step.usage.cost)} · ${formatTokens(totalTokens(step.usage))} tokens` : '';
  return `${MARKS[step.status]} ${step.id} (${step.agent}) ${STATUS_WORDS[step.status]}${attempt}${spent}`;
}

/**
 * The lines under the running orca_ask_planner call: the title's line (progressTitle), one line
 * per step (at most MAX_PROGRESS_STEPS: the steps that run or wait for a person first, then the
 * last ones done and the next ones waiting, and how many are not shown) and the viewer's page of
 * the plan when the viewer is on.
 */
export function progressLines(file: ProgressFile, viewerUrl?: string): string[] {
  const lines = [progressTitle(file)];
  const steps = file.steps;
  if (steps.length <= MAX_PROGRESS_STEPS) lines.push(...steps.map(stepLine));
  else {
    const active = steps.filter((s) => s.status !== 'completed' && s.status !== 'pending');
    const room = Math.max(0, MAX_PROGRESS_STEPS - active.length);
    const done = steps.filter((s) => s.status === 'completed');
    const waiting = steps.filter((s) => s.status === 'pending');
    const waitingCount = Math.min(waiting.length, room - Math.min(done.length, Math.ceil(room / 2)));
    const shownWaiting = waiting.slice(0, waitingCount);
    const shownDone = done.slice(done.length - Math.min(done.length, room - waitingCount));
    const shown = new Set([...active, ...shownDone, ...shownWaiting].slice(0, MAX_PROGRESS_STEPS));
    lines.push(...steps.filter((s) => shown.has(s)).map(stepLine));
    const hiddenDone = done.filter((s) => !shown.has(s)).length;
    const hiddenWaiting = waiting.filter((s) => !shown.has(s)).length;
    const hidden = [hiddenDone ? `${hiddenDone} more done` : '', hiddenWaiting ? `${hiddenWaiting} more waiting` : ''].filter(Boolean);
    if (hidden.length) lines.push(`… ${hidden.join(', ')} (orca show ${file.plan_id})`);
  }
  if (viewerUrl) lines.push(`viewer: ${planPageUrl(viewerUrl, file.plan_id)}`);
  return lines;
}

/** The viewer's page of one plan (its app routes `#/plan/<id>`), from the URL the viewer printed (with its token). */
export function planPageUrl(viewerUrl: string, planId: string): string {
  return `${viewerUrl.replace(/#.*$/, '')}#/plan/${encodeURIComponent(planId)}`;
}

export interface ProgressTitleOptions {
  host: { observe(name: string, observer: PlanObserver): () => void };
  titles: ToolTitlePort;
  planId: string;
  /** The tool call to retitle: its message, and the tool name and input to tell it from other calls there. */
  call: { sessionID: string; messageID: string; tool: string; input: Record<string, unknown> };
  /** The turn's abort signal (Esc): after it, the part is put back only once OpenCode has ended the turn. */
  turn: AbortSignal;
  log: (level: 'warn', message: string) => void;
  /** The plan viewer's URL while it is on (its page of the plan is shown), else undefined. */
  viewerUrl?: () => string | undefined;
  /** At most one retitle per this many ms (each is a request OpenCode answers and publishes); the newest title wins. */
  everyMs?: number;
}

/** Default of ProgressTitleOptions.everyMs. */
export const TITLE_EVERY_MS = 1000;

/**
 * Retitle the running tool call at each recorded change of its plan. An observer: it hears of a
 * change after its write is queued and does its own IO behind, one PATCH at a time and at most one
 * per `everyMs`, the newest title winning; a failure is logged once and the plan is never held up.
 * `stop` (await it before the tool returns) ends the updates at once, so none can overwrite the
 * completed part, and puts the part back as the model sent it (OpenCode completes the part with its
 * stored input, which the model reads later); after Esc, once OpenCode has ended the turn.
 */
export function followProgressTitle({ host, titles, planId, call, turn, log, viewerUrl, everyMs = TITLE_EVERY_MS }: ProgressTitleOptions): { stop(): Promise<void> } {
  let part: Promise<ToolPart | null> | null = null;
  let shown: string | null = null;
  let wanted: ToolProgress | null = null;
  const key = (p: ToolProgress | null) => (p ? JSON.stringify(p) : null);
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  let failed = false;
  let lastAt = -Infinity;
  /** Ends the pause between two retitles early (stop). */
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => end(), ms);
      timer.unref?.(); // a title still to come never keeps a process alive
      const end = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
      wake = end;
    });

  const push = () => {
    chain = chain.then(async () => {
      if (stopped || failed || wanted === null || key(wanted) === shown) return;
      const wait = lastAt + everyMs - Date.now();
      if (wait > 0) await pause(wait);
      if (stopped || key(wanted) === shown) return;
      part ??= titles.find(call, { tool: call.tool, input: call.input });
      const found = await part;
      if (!found) part = null; // not running yet: look again at the next change
      if (!found || stopped) return;
      const next = wanted!;
      await titles.show(found, next);
      shown = key(next);
      lastAt = Date.now();
    }).catch((error: unknown) => {
      failed = true; // once: the title is a convenience, the plan goes on
      log('warn', `plan ${planId}: the progress title of orca_ask_planner could not be updated: ${errorMessage(error)}`);
    });
  };

  const unsubscribe = host.observe(`the progress title of ${planId}`, ({ planId: changed, file }) => {
    if (changed !== planId || stopped) return;
    // One value: the first line (progressTitle) is the part's title, the lines its progress entry.
    const next = progressLines(file, viewerUrl?.());
    if (key(next) === key(wanted)) return;
    wanted = next;
    push();
  });

  return {
    async stop() {
      stopped = true;
      wake?.();
      unsubscribe();
      await chain;
      // The model reads its call's input in every later request: it gets back what it sent.
      const found = shown === null ? null : await part;
      if (found) await titles.restore(found, turn).catch((error: unknown) => log('warn', `plan ${planId}: the orca_ask_planner call could not be put back as it was sent (its input keeps the progress): ${errorMessage(error)}`));
    },
  };
}
