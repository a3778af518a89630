/**
 * Every Orca agent prompt starts with `<!-- orca-agent:ID -->` on its own line, so tests (and
 * logs) can tell from a model request's system message which agent it is for. It is an HTML
 * comment: models ignore it, and it survives a user's own prompt replacing Orca's.
 */
export function agentMarker(agentId: string): string {
  return `<!-- orca-agent:${agentId} -->`;
}

const MARKER = /<!-- orca-agent:([A-Za-z0-9_.-]+) -->/;

/** The agent id of the first marker in `text` (e.g. a request's system prompt), if any. */
export function findAgentMarker(text: string): string | undefined {
  return MARKER.exec(text)?.[1];
}
