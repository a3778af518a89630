/** Reads one session's parent id (undefined for a root session); throws when the session is unknown. */
export type ParentLookup = (sessionId: string) => Promise<string | undefined>;

/** Deeper than any real chain of subagents: a longer walk means the store has a cycle. */
const MAX_DEPTH = 64;

/**
 * The root of the session tree `sessionId` belongs to. The TUI shows dialogs only for the root
 * session on screen and its direct children, so a question is raised from a child of this root.
 */
export async function findRootSession(parentOf: ParentLookup, sessionId: string): Promise<string> {
  const seen = new Set<string>();
  let current = sessionId;
  for (;;) {
    if (seen.has(current)) throw new Error(`Expected a tree of sessions, but session ${current} is its own ancestor.`);
    if (seen.size >= MAX_DEPTH) throw new Error(`Expected a root session within ${MAX_DEPTH} levels above ${sessionId}.`);
    seen.add(current);
    const parent = await parentOf(current);
    if (!parent) return current;
    current = parent;
  }
}
