import { WAITING_WORDS } from '../machines/gates.js';
import { activityOf } from '../persistence/plan-activity.js';
import type { PlanSummary } from '../persistence/plan-index.js';
import type { Toast } from './toasts.js';

/**
 * The toast about plans a previous process left unfinished. OpenCode loads the plugin while the TUI
 * is still starting, and a toast shown then reaches no screen (verified in tmux: only the log line
 * remained; https://github.com/anomalyco/opencode/issues/38527). So it is held until a client shows
 * signs of listening: it asked for the providers (OpenCode 1.18 publishes `plugin.added` /
 * `catalog.updated` as it builds that list, which the TUI does once it is up), or a session moved.
 * Shown once.
 */
const CLIENT_SIGNS = /^(plugin\.added|catalog\.updated|session\.|message\.)/;

/** How long the start-up toast stays: longer than OpenCode's default, it is read once. */
export const STARTUP_TOAST_MS = 12_000;

export function unfinishedPlansToast(unfinished: PlanSummary[]): Toast | null {
  if (unfinished.length === 0) return null;
  const listed = unfinished.slice(0, 3).map((p) => `${p.plan_id} ${p.waiting_for ? `waits for ${WAITING_WORDS[p.waiting_for]}` : activityOf(p, false)}`);
  if (unfinished.length > 3) listed.push(`${unfinished.length - 3} more`);
  return {
    title: `Orca: ${unfinished.length} unfinished plan${unfinished.length === 1 ? '' : 's'}`,
    message: `${listed.join('; ')}. Ask Orca to continue one by its plan_id (orca plans lists them).`,
    variant: 'info',
    duration: STARTUP_TOAST_MS,
  };
}

export interface StartupNotice {
  /** Feed OpenCode's events (the plugin's `event` hook); the toast goes out at the first sign of a client. */
  observe(event: { type: string }): void;
}

export function startupNotice(toast: Toast | null, show: (toast: Toast) => void, log: (message: string) => void): StartupNotice {
  let pending = toast;
  return {
    observe(event) {
      if (!pending || !CLIENT_SIGNS.test(event.type)) return;
      const shown = pending;
      pending = null;
      log(`start-up notice shown (a client is listening: ${event.type})`);
      show(shown);
    },
  };
}
