import type { OutputFormat } from './expected-shape.js';

/**
 * How a turn's answer travels back (docs/design.md, "Model output protocol"):
 * - `text`, the default: the reply ends with one JSON object, read by tolerant parsing. OpenCode
 *   can list such a session's messages, so the TUI shows it and a restart can reuse its result.
 * - `structured`: OpenCode's structured output (`format: json_schema`, a forced StructuredOutput
 *   tool call). OpenCode 1.18 cannot list such a session
 *   (https://github.com/anomalyco/opencode/issues/26929), and reasoning models may refuse the
 *   forced tool choice: then the turn falls back to `text`.
 */
export type OutputProtocol = 'text' | 'structured';

export const OUTPUT_PROTOCOLS = ['text', 'structured'] as const satisfies readonly OutputProtocol[];

/**
 * The last section of a turn's first prompt, and the only place a request states the answer's
 * format (the agents' system prompts do not): how to answer, the shapes, an example of each. Only
 * here is the protocol known, and a structured turn refused by its model is asked again in text.
 */
export function protocolSection(protocol: OutputProtocol, { shape, examples }: OutputFormat): string {
  const how =
    protocol === 'structured'
      ? 'Call the StructuredOutput tool once with your answer: one object of one of these shapes'
      : 'End your reply with one JSON object: the last JSON object in your reply is read as your answer. It has one of these shapes';
  const lines = ['# Output protocol', `${how} ("?" marks an optional field):`, shape];
  if (examples.length > 0) lines.push(examples.length === 1 ? 'For example:' : 'For example, one of each:', ...examples);
  return lines.join('\n');
}

/** A first prompt with its protocol section. */
export function withProtocol(prompt: string, protocol: OutputProtocol, format: OutputFormat): string {
  return `${prompt.trimEnd()}\n\n${protocolSection(protocol, format)}`;
}
