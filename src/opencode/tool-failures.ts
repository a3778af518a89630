/**
 * The in-session tool-loop breaker (docs/design.md, "Breakers and limits"), as pure functions over
 * a session's transcript: the same tool called with the same input failing the same way, again and
 * again.
 */

/** One settled tool call: `error` is absent when it succeeded. */
export interface ToolOutcome {
  tool: string;
  input: unknown;
  error?: string;
}

/** The identical failures a session's transcript ends with. */
export interface FailureStreak {
  tool: string;
  input: unknown;
  error: string;
  count: number;
}

/** The transcript as OpenCode hands it to `experimental.chat.messages.transform` (only what is read here). */
export type TranscriptMessage = {
  info: { role: string; sessionID: string; [field: string]: unknown };
  parts: ReadonlyArray<{ type: string; [field: string]: unknown }>;
};

interface ToolPartLike {
  type: 'tool';
  tool: string;
  state: { status: string; input?: unknown; output?: string; error?: string };
}

/**
 * The transcript's settled tool calls, oldest first; pending and running calls are not outcomes
 * yet. A completed call of OpenCode's `invalid` tool is a failure: it stands for a call to a tool
 * the agent lacks (or with arguments its schema refused), and nothing was run.
 */
export function toolOutcomes(messages: readonly TranscriptMessage[]): ToolOutcome[] {
  const outcomes: ToolOutcome[] = [];
  for (const message of messages) {
    if (message.info.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (part.type !== 'tool') continue;
      const { tool, state } = part as unknown as ToolPartLike;
      if (state.status === 'completed' && tool === 'invalid') outcomes.push({ tool: calledTool(state.input) ?? tool, input: state.input, error: state.output ?? '' });
      else if (state.status === 'completed') outcomes.push({ tool, input: state.input });
      else if (state.status === 'error') outcomes.push({ tool, input: state.input, error: state.error ?? '' });
    }
  }
  return outcomes;
}

/**
 * How many times in a row, counting back from the latest outcome, the same tool failed with the
 * same input and the same error. A success or a different failure ends the streak; null when the
 * latest outcome is not a failure.
 */
export function failureStreak(outcomes: readonly ToolOutcome[]): FailureStreak | null {
  const last = outcomes.at(-1);
  if (last?.error === undefined) return null;
  const key = identity(last);
  let count = 0;
  for (let i = outcomes.length - 1; i >= 0 && outcomes[i]!.error !== undefined && identity(outcomes[i]!) === key; i--) count++;
  return { tool: last.tool, input: last.input, error: last.error, count };
}

/** The tool the model meant, from the `{tool, error}` input OpenCode gives its `invalid` tool. */
function calledTool(input: unknown): string | undefined {
  const tool = (input as { tool?: unknown } | null)?.tool;
  return typeof tool === 'string' && tool !== '' ? tool : undefined;
}

const identity = (o: ToolOutcome) => `${o.tool}\u0000${stableJson(o.input)}\u0000${o.error}`;

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same input. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  ) ?? 'undefined';
}

const brief = (text: string, max = 300) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** What the model reads before its next request once the streak reaches `redirect_at`. */
export function redirectText({ tool, input, error, count }: FailureStreak): string {
  return (
    `You have called ${tool} with the same input ${count} times and it failed the same way each time: ${brief(error)}. ` +
    `Do not call it again with this input (${brief(stableJson(input), 200)}); try a different approach or report failure in the output protocol.`
  );
}

/** The step's error once the streak reaches `abort_at` and the session is aborted. */
export function abortText({ tool, error, count }: FailureStreak): string {
  return `aborted after ${count} identical failures of ${tool}: ${brief(error)}`;
}

/**
 * The AI SDK's message for a call to a tool the agent lacks (unknown, or denied by its role),
 * which OpenCode 1.18 passes as `error` to its `invalid` tool: `Model tried to call unavailable
 * tool '<name>'. Available tools: a, b.` (or `No tools are available.`).
 */
const UNAVAILABLE_TOOL = /^Model tried to call unavailable tool '(.*)'\. (?:Available tools: (.*)\.|No tools are available\.)$/s;

/**
 * What the `invalid` tool should answer instead of "The arguments provided to the tool are
 * invalid: Model tried to call unavailable tool …": the tool the model called and the tools it
 * has, `invalid` itself left out (OpenCode never offers it). Undefined for every other call of
 * `invalid` (e.g. arguments that fail a real tool's schema), whose answer is already right.
 */
export function unavailableToolText(args: unknown): string | undefined {
  const error = (args as { error?: unknown } | null)?.error;
  const match = typeof error === 'string' ? UNAVAILABLE_TOOL.exec(error) : null;
  if (!match) return undefined;
  const tools = (match[2] ?? '').split(', ').filter((t) => t !== '' && t !== 'invalid');
  const called = brief(match[1]!, 100);
  return tools.length === 0
    ? `You called '${called}', which is not one of your tools: nothing was run. You have no tools; answer in text.`
    : `You called '${called}', which is not one of your tools: nothing was run. Your tools are: ${tools.join(', ')}. Call one of these instead.`;
}
