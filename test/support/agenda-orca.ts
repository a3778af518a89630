import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '@opencode-ai/plugin';
import { assembleOrca, type Orca } from '../../src/composition-root.js';
import type { OrcaOptions } from '../../src/config/options.js';
import type { CommandRunner } from '../../src/agenda/bridges/plan-actions.js';
import { createSessionMonitor } from '../../src/opencode/session-monitor.js';
import type { Toast } from '../../src/notices/toasts.js';
import { fakeSessions } from './fake-sessions.js';
import { waitFor } from './wait-for.js';

/**
 * Orca in process over fake sessions, with its agenda running: the planner proposes `plan` (or
 * answers what `planner` says), specialists succeed, commands are recorded. For the agenda's
 * wiring tests, which need plans, gates and the scheduler together without an OpenCode server.
 */
export const twoSteps = {
  type: 'plan',
  goal: 'Run the nightly checks',
  steps: [
    { id: 'lint', agent: 'document-writer', description: 'lint' },
    { id: 'test', agent: 'tester', description: 'test', depends_on: ['lint'] },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};

export interface AgendaOrca {
  dir: string;
  orca: Orca;
  sessions: ReturnType<typeof fakeSessions>;
  toasts: Toast[];
  logs: string[];
  commands: Array<Parameters<CommandRunner>[0]>;
  /** A new Orca on the same directory (a restarted server); the old one must be disposed first. */
  restart(options?: OrcaOptions): AgendaOrca;
  dispose(): Promise<void>;
}

export function agendaOrca(options: OrcaOptions = {}, dir = mkdtempSync(join(tmpdir(), 'orca-agenda-wiring-')), planner: (text: string) => unknown = () => twoSteps): AgendaOrca {
  const sessions = fakeSessions((agent, text) => (agent === 'planner' ? planner(text) : { type: 'success', summary: `${agent} done`, artifacts: [] }));
  const toasts: Toast[] = [];
  const logs: string[] = [];
  const commands: AgendaOrca['commands'] = [];
  const orca = assembleOrca({
    directory: dir,
    options: { review: { agents: [] }, ...options, agenda: { poll_seconds: 1, ...options.agenda } },
    sessions: sessions.port,
    asker: { ask: async () => ({ kind: 'unavailable', reason: 'no dialog in this test' }) },
    notes: { post: () => {}, say: async () => true, restoreAfterTurn: () => {}, turnStarting: async () => {}, observe: () => {} },
    monitor: createSessionMonitor({ abort: async () => {}, log: () => {} }),
    log: (level, message) => void logs.push(`${level} ${message}`),
    showToast: (toast) => void toasts.push(toast),
    runCommand: async (input) => {
      commands.push(input);
      return { text: `ran /${input.command}` };
    },
  });
  return {
    dir,
    orca,
    sessions,
    toasts,
    logs,
    commands,
    restart: (next = options) => agendaOrca(next, dir, planner),
    dispose: () => orca.dispose(),
  };
}

export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

export const toolContext = (dir: string, sessionID = 'ses_orca'): ToolContext => ({
  sessionID,
  messageID: 'msg_1',
  agent: 'planner',
  directory: dir,
  worktree: dir,
  abort: new AbortController().signal,
  metadata: () => {},
  ask: async () => {},
});

/** The plan file of a plan, as the host wrote it. */
export const untilAgenda = (orca: Orca) => waitFor(() => orca.agenda.holding, { timeoutMs: 10_000, description: 'this process to hold the agenda' });
