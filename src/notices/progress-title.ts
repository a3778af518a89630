import type { PlanObserver } from '../host/observers.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { formatCost } from '../usage/format.js';
import type { ToolPart, ToolTitlePort } from '../opencode/tool-title.js';
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

export interface ProgressTitleOptions {
  host: { observe(name: string, observer: PlanObserver): () => void };
  titles: ToolTitlePort;
  planId: string;
  /** The tool call to retitle: its message, and the tool name and input to tell it from other calls there. */
  call: { sessionID: string; messageID: string; tool: string; input: Record<string, unknown> };
  log: (level: 'warn', message: string) => void;
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
 * completed part.
 */
export function followProgressTitle({ host, titles, planId, call, log, everyMs = TITLE_EVERY_MS }: ProgressTitleOptions): { stop(): Promise<void> } {
  let part: Promise<ToolPart | null> | null = null;
  let shown: string | null = null;
  let wanted: string | null = null;
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
      if (stopped || failed || wanted === null || wanted === shown) return;
      const wait = lastAt + everyMs - Date.now();
      if (wait > 0) await pause(wait);
      if (stopped || wanted === shown) return;
      part ??= titles.find(call, { tool: call.tool, input: call.input });
      const found = await part;
      if (!found) part = null; // not running yet: look again at the next change
      if (!found || stopped) return;
      const title = wanted;
      await titles.setTitle(found, title);
      shown = title;
      lastAt = Date.now();
    }).catch((error: unknown) => {
      failed = true; // once: the title is a convenience, the plan goes on
      log('warn', `plan ${planId}: the progress title of orca_ask_planner could not be updated: ${errorMessage(error)}`);
    });
  };

  const unsubscribe = host.observe(`the progress title of ${planId}`, ({ planId: changed, file }) => {
    if (changed !== planId || stopped) return;
    const title = progressTitle(file);
    if (title === wanted) return;
    wanted = title;
    push();
  });

  return {
    async stop() {
      stopped = true;
      wake?.();
      unsubscribe();
      await chain;
    },
  };
}
