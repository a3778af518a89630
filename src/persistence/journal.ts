import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Usage } from '../machines/usage.js';

/**
 * An append-only JSONL record per plan, `.opencode/plans/{plan_id}.journal.jsonl`: every event
 * the plan received (with where it came from) and every state its actors entered. It is for
 * audit and replay (the inspector); the snapshot, not the journal, is what a plan resumes from.
 */
export type JournalEntry =
  | { at: string; kind: 'event'; source: EventSource; event: { type: string; [key: string]: unknown } }
  | { at: string; kind: 'state'; actor: string; state: string }
  /** After a restore: what was done about a side effect that was in flight (see opencode/reconcile.ts). */
  | { at: string; kind: 'reconcile'; role: string; session_id: string; idempotency_key?: string; decision: string; detail?: string }
  /** One prompt Orca sent for the plan and what it cost (opencode/turn-port.ts): every turn, corrections and read-only asks included. */
  | {
      at: string;
      kind: 'turn';
      role: string;
      agent: string;
      step_id?: string;
      session_id: string;
      idempotency_key?: string;
      correction: boolean;
      usage: Usage;
      /** The turn was stopped before this prompt answered (Esc, a server stopping, its chart leaving the state); `usage` is what OpenCode recorded of it. */
      aborted?: true;
      /** What the stopped turn cost that its plan's usage has not counted (the plan was not running): counted when the plan runs the turn again. */
      uncounted?: Usage;
      /** The plan's usage now counts what earlier stopped runs of this turn left `uncounted` (a line that records no prompt). */
      counted?: Usage;
    }
  /**
   * The agent's model refused structured output (see opencode/protocol-memory.ts): the plan's later
   * turns of that agent, with that model, use the text protocol. `model` is absent for OpenCode's default model.
   */
  | { at: string; kind: 'protocol'; agent: string; model?: string; protocol: 'text'; reason: string; session_id: string }
  /** A turn's answer was accepted with slips forgiven (protocol/normalize-output.ts), in words: `JSONC: comments removed`. */
  | { at: string; kind: 'coercion'; role: string; agent: string; step_id?: string; session_id: string; coerced: string[] }
  /** An undo took the steps' landed changes back out of the user's tree, or a redo put them back (the plan file's `undos` has the files and patch). */
  | { at: string; kind: 'rewind'; direction: 'undo' | 'redo'; steps: string[]; channel: string; files: number };

export type EventSource = 'tool' | 'question' | 'permission' | 'command' | 'cli' | 'auto' | 'child' | 'invoke' | 'init';

export const journalPath = (plansDir: string, planId: string) => `${plansDir}/${planId}.journal.jsonl`;

export function appendJournal(path: string, entries: JournalEntry[]): void {
  if (entries.length === 0) return;
  appendFileSync(path, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
}

/** Entries in order; a torn last line (a crash mid-append) is skipped. */
export function readJournal(path: string): JournalEntry[] {
  if (!existsSync(path)) return [];
  const entries: JournalEntry[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch {
      // only the last line can be torn: appends are whole lines
    }
  }
  return entries;
}

/** Where an event came from: the decision channel it carries, else what kind of event it is. */
export function sourceOf(event: { type: string; channel?: unknown }): EventSource {
  if (typeof event.channel === 'string') return event.channel as EventSource;
  if (event.type === 'xstate.init') return 'init';
  if (event.type.startsWith('xstate.done.actor.') || event.type.startsWith('xstate.error.actor.')) return 'invoke';
  if (event.type.startsWith('step.')) return 'child';
  return 'tool';
}
