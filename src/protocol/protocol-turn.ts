import { z } from 'zod';
import { isUsage } from '../machines/turn.js';
import { addUsage, ZERO_USAGE, type Usage } from '../machines/usage.js';
import { abortable } from './abortable.js';
import { correctionPrompt } from './correction-prompt.js';
import { describeFormat, type OutputFormat } from './expected-shape.js';
import type { CandidateSource } from './json-candidates.js';
import { OutputProtocolError, TurnEndedError } from './output-protocol-error.js';
import { withProtocol, type OutputProtocol } from './output-protocol.js';
import { parseModelOutput, validateOutput, type ParsedOutput } from './parse-output.js';

export interface TurnReply {
  /** The provider's structured output (OpenCode: `info.structured`), when it produced one. */
  readonly structured?: unknown;
  /** The reply's text: where the text protocol's JSON object is. */
  readonly text: string;
  /** Why the turn ended without an answer (OpenCode's error on the assistant message). */
  readonly error?: string;
  /**
   * Set when the provider refused structured output's forced tool choice ("does not support this
   * tool_choice"): the port has stopped that prompt, and the turn asks again with the text protocol.
   */
  readonly refusal?: string;
  /** What this prompt cost (every model request it made); absent when the port cannot tell. */
  readonly usage?: Usage;
}

/** One model session; every prompt of a turn, corrections included, goes to the same session. */
export interface TurnPort {
  /**
   * A blocking prompt: with `jsonSchema` as structured output, without it as plain text.
   * `correction`: a correction prompt after a reply that did not validate.
   */
  prompt(text: string, options: { jsonSchema?: object; signal?: AbortSignal; correction?: boolean }): Promise<TurnReply>;
}

export interface ProtocolTurnOptions<T> {
  readonly schema: z.ZodType<T>;
  readonly jsonSchema: object;
  /** The turn's first prompt; its output protocol section is appended here. */
  readonly prompt: string;
  /** Default `text`. */
  readonly protocol?: OutputProtocol;
  /** Correction prompts allowed after the first reply; default 2. */
  readonly maxCorrections?: number;
  readonly signal?: AbortSignal;
  /** Names the output in errors, e.g. "planner output"; default "model output". */
  readonly label?: string;
  /** Called after every reply, before it is read: a guard may throw to end the turn (the tool-loop breaker). */
  readonly afterReply?: (reply: TurnReply) => void;
}

export interface ProtocolTurnResult<T> {
  readonly value: T;
  /** Every prompt of the turn summed: the first, a refused structured attempt, the corrections. */
  readonly usage: Usage;
  readonly corrections: number;
  readonly via: 'structured' | CandidateSource;
  /** The protocol the answer came with. */
  readonly protocol: OutputProtocol;
  /** The provider's refusal message, when structured output was refused and the turn fell back to text. */
  readonly refusal?: string;
  /** The slips forgiven in the answer, in words (JSONC, a string taken as a list, …): journaled by the turn runner. */
  readonly coerced: string[];
}

/**
 * An error of a turn that had already prompted: what those prompts cost rides along as
 * `error.usage` (machines/turn.ts reads it), added to what was attached before. Not enumerable: an
 * error written to a log or the journal stays as it was.
 */
export function withUsage(error: unknown, usage: Usage): unknown {
  if (usage.turns === 0 || typeof error !== 'object' || error === null || Object.isFrozen(error)) return error;
  const own = (error as { usage?: unknown }).usage;
  const value = isUsage(own) ? addUsage(own, usage) : usage;
  Object.defineProperty(error, 'usage', { value, enumerable: false, configurable: true, writable: true });
  return error;
}

/**
 * Prompts until the reply validates against `schema`: the answer is read from structured output
 * or, by tolerant parsing, from the text; then up to `maxCorrections` correction prompts quoting
 * what was wrong. A refused structured prompt is asked again, in the same session, with the text
 * protocol (not a correction). Throws OutputProtocolError when the model never gets it right and
 * TurnEndedError when a prompt ends with an error instead of a reply; every error thrown after a
 * prompt carries what the turn cost so far (withUsage).
 */
export async function runProtocolTurn<T>(
  port: TurnPort,
  { schema, jsonSchema, prompt, protocol: initial = 'text', maxCorrections = 2, signal, label = 'model output', afterReply }: ProtocolTurnOptions<T>,
): Promise<ProtocolTurnResult<T>> {
  if (!Number.isInteger(maxCorrections) || maxCorrections < 0)
    throw new TypeError(`Expected \`maxCorrections\` to be a non-negative integer, got ${maxCorrections}.`);

  const format = outputFormat(schema, jsonSchema);
  let protocol = initial;
  let usage = ZERO_USAGE;
  let refusal: string | undefined;
  /** What the next prompt asks: the turn itself, or a correction with its reason. */
  let asking: { correction?: string } = {};
  let corrections = 0;
  const textOf = () => (asking.correction === undefined ? withProtocol(prompt, protocol, format) : correctionPrompt(asking.correction, format.shape, protocol));

  for (;;) {
    let reply: TurnReply;
    try {
      signal?.throwIfAborted();
      const correction = asking.correction !== undefined;
      const options = { ...(protocol === 'structured' ? { jsonSchema } : {}), ...(signal ? { signal } : {}), ...(correction ? { correction } : {}) };
      reply = await abortable(port.prompt(textOf(), options), signal);
      // A prompt whose cost the port cannot tell still was a turn.
      usage = addUsage(usage, reply.usage ?? { ...ZERO_USAGE, turns: 1 });
      afterReply?.(reply);
    } catch (error) {
      throw withUsage(error, usage);
    }
    if (reply.refusal !== undefined && protocol === 'structured') {
      refusal = reply.refusal;
      protocol = 'text';
      continue; // the same question again, in the protocol every model can answer
    }
    const outcome = readReply(reply, schema);
    if (outcome.ok)
      return { value: outcome.value, usage, corrections, via: outcome.via, protocol, ...(refusal !== undefined ? { refusal } : {}), coerced: outcome.coerced };
    // A provider or OpenCode error with nothing said: a correction prompt cannot fix that (a model
    // that skipped the StructuredOutput tool, OpenCode's StructuredOutputError, can be corrected).
    if (reply.error !== undefined && !reply.error.startsWith('StructuredOutputError') && !reply.text.trim() && reply.structured === undefined)
      throw withUsage(new TurnEndedError({ label, error: reply.error }), usage);
    if (corrections >= maxCorrections) throw withUsage(new OutputProtocolError({ label, attempts: corrections + 1, lastReason: outcome.reason }), usage);
    corrections++;
    asking = { correction: outcome.reason };
  }
}

type ReplyOutcome<T> = ParsedOutput<T> | { readonly ok: true; readonly value: T; readonly via: 'structured'; readonly coerced: string[] };

/** Structured output wins; text is the fallback, and a bad structured value explains the failure. */
function readReply<T>(reply: TurnReply, schema: z.ZodType<T>): ReplyOutcome<T> {
  const { structured } = reply;
  if (structured === undefined || structured === null) return parseModelOutput(reply.text, schema);
  const checked =
    typeof structured === 'string' ? parseModelOutput(structured, schema) : validateOutput(structured, schema);
  if (checked.ok) return { ok: true, value: checked.value, via: 'structured', coerced: checked.coerced };
  const fromText = parseModelOutput(reply.text, schema);
  return fromText.ok ? fromText : checked;
}

/**
 * The format a turn's first prompt states, from the zod schema the reply is parsed with: its
 * union's variants read better than the flattened tool schema, and carry the examples. The tool
 * schema is the fallback for a zod schema that cannot be converted (e.g. a cycle).
 */
export function outputFormat(schema: z.ZodType, jsonSchema: object): OutputFormat {
  try {
    return describeFormat(z.toJSONSchema(schema, { unrepresentable: 'any' }));
  } catch {
    return describeFormat(jsonSchema);
  }
}
