import { appendJournal, readJournal, type JournalEntry } from '../persistence/journal.js';

/**
 * What a plan learned about its agents' models: which refused structured output (a reasoning
 * model rejecting the forced tool choice), so the plan's later turns of that agent go straight to
 * the text protocol instead of failing first. Kept in the plan's journal, so a restarted server
 * knows it too; keyed by agent and configured model, so a model changed in the config is tried
 * again.
 */
export interface ProtocolMemory {
  /** Whether this plan learned that the agent's model needs the text protocol. */
  needsText(planId: string, agent: string): boolean;
  /** Record that the agent's model refused structured output in this plan. */
  rememberRefusal(planId: string, record: { agent: string; reason: string; sessionId: string }): void;
}

export interface JournalProtocolMemoryOptions {
  journalPathOf(planId: string): string;
  /** The model configured for an agent (`agents.<id>.model`), undefined for OpenCode's default. */
  modelOf(agent: string): string | undefined;
}

type ProtocolEntry = Extract<JournalEntry, { kind: 'protocol' }>;

/** The memory over each plan's journal: read once per plan, then kept in memory and appended to. */
export function journalProtocolMemory({ journalPathOf, modelOf }: JournalProtocolMemoryOptions): ProtocolMemory {
  const known = new Map<string, ProtocolEntry[]>();
  const entriesOf = (planId: string) => {
    let entries = known.get(planId);
    if (!entries) {
      entries = readJournal(journalPathOf(planId)).filter((e): e is ProtocolEntry => e.kind === 'protocol');
      known.set(planId, entries);
    }
    return entries;
  };
  return {
    needsText(planId, agent) {
      const model = modelOf(agent);
      return entriesOf(planId).some((e) => e.agent === agent && e.model === model);
    },
    rememberRefusal(planId, { agent, reason, sessionId }) {
      const model = modelOf(agent);
      const entry: ProtocolEntry = {
        at: new Date().toISOString(),
        kind: 'protocol',
        agent,
        ...(model !== undefined ? { model } : {}),
        protocol: 'text',
        reason,
        session_id: sessionId,
      };
      entriesOf(planId).push(entry);
      appendJournal(journalPathOf(planId), [entry]);
    },
  };
}

/** A memory that lives in the process only (tests, and ports built without a plan store). */
export function inMemoryProtocolMemory(): ProtocolMemory {
  const needs = new Set<string>();
  return {
    needsText: (planId, agent) => needs.has(`${planId}\n${agent}`),
    rememberRefusal: (planId, { agent }) => void needs.add(`${planId}\n${agent}`),
  };
}
