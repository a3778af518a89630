/**
 * How a turn's answer travels back (DESIGN "Model output protocol"):
 * - `text`, the default: the reply ends with one JSON object, read by tolerant parsing. OpenCode
 *   can list such a session's messages, so the TUI shows it and a restart can reuse its result.
 * - `structured`: OpenCode's structured output (`format: json_schema`, a forced StructuredOutput
 *   tool call). OpenCode 1.18 cannot list such a session (opencode#26929), and reasoning models
 *   may refuse the forced tool choice: then the turn falls back to `text`.
 */
export type OutputProtocol = 'text' | 'structured';

export const OUTPUT_PROTOCOLS = ['text', 'structured'] as const satisfies readonly OutputProtocol[];

/** The last section of a turn's first prompt: how to answer and in which shape. */
export function protocolSection(protocol: OutputProtocol, shape: string): string {
  const how =
    protocol === 'structured'
      ? 'Call the StructuredOutput tool once with your answer: one object of one of these shapes'
      : 'End your reply with exactly one JSON object, nothing after it, of one of these shapes';
  return `# Output protocol\n${how} ("?" marks an optional field):\n${shape}`;
}

/** A first prompt with its protocol section. */
export function withProtocol(prompt: string, protocol: OutputProtocol, shape: string): string {
  return `${prompt.trimEnd()}\n\n${protocolSection(protocol, shape)}`;
}
