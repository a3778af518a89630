import { z } from 'zod';
import { abortable } from './abortable.js';
import { correctionPrompt } from './correction-prompt.js';
import { describeShape } from './expected-shape.js';
import type { CandidateSource } from './json-candidates.js';
import { OutputProtocolError } from './output-protocol-error.js';
import { parseModelOutput, validateOutput, type ParsedOutput } from './parse-output.js';
import { isUsage } from '../machines/turn.js';
import { addUsage, ZERO_USAGE, type Usage } from '../machines/usage.js';

export interface TurnReply {
  /** The provider's structured output (OpenCode: `info.structured`), when it produced one. */
  readonly structured?: unknown;
  /** The reply's text, for models that answered in prose instead. */
  readonly text: string;
  /** What the prompt cost (every model request it made); absent when the port cannot tell. */
  readonly usage?: Usage;
}

/** One model session; every prompt of a turn, corrections included, goes to the same session. */
export interface TurnPort {
  prompt(text: string, options: { jsonSchema: object; signal?: AbortSignal }): Promise<TurnReply>;
}

export interface StructuredTurnOptions<T> {
  readonly schema: z.ZodType<T>;
  readonly jsonSchema: object;
  readonly prompt: string;
  /** Correction prompts allowed after the first reply; default 2. */
  readonly maxCorrections?: number;
  readonly signal?: AbortSignal;
  /** Names the output in errors, e.g. "planner output"; default "model output". */
  readonly label?: string;
}

export interface StructuredTurnResult<T> {
  readonly value: T;
  readonly corrections: number;
  readonly via: 'structured' | CandidateSource;
  /** Every prompt of the turn summed, corrections included. */
  readonly usage: Usage;
}

/**
 * An error of a turn that had already prompted: what those prompts cost rides along as
 * `error.usage` (machines/turn.ts reads it), added to what the port attached for its own prompt.
 */
export function withUsage(error: unknown, usage: Usage): unknown {
  if (usage.turns === 0 || typeof error !== 'object' || error === null || Object.isFrozen(error)) return error;
  const own = (error as { usage?: unknown }).usage;
  const value = isUsage(own) ? addUsage(own, usage) : usage;
  Object.defineProperty(error, 'usage', { value, enumerable: false, configurable: true, writable: true });
  return error;
}

/**
 * Prompts until the reply validates against `schema`: structured output first, then tolerant
 * text parsing, then up to `maxCorrections` correction prompts quoting what was wrong.
 * Throws OutputProtocolError when the model never gets it right.
 */
export async function runStructuredTurn<T>(
  port: TurnPort,
  { schema, jsonSchema, prompt, maxCorrections = 2, signal, label = 'model output' }: StructuredTurnOptions<T>,
): Promise<StructuredTurnResult<T>> {
  if (!Number.isInteger(maxCorrections) || maxCorrections < 0)
    throw new TypeError(`Expected \`maxCorrections\` to be a non-negative integer, got ${maxCorrections}.`);

  let text = prompt;
  let usage = ZERO_USAGE;
  for (let attempt = 1; ; attempt++) {
    let reply: TurnReply;
    try {
      signal?.throwIfAborted();
      reply = await abortable(port.prompt(text, { jsonSchema, signal }), signal);
    } catch (error) {
      throw withUsage(error, usage);
    }
    usage = addUsage(usage, reply.usage ?? { ...ZERO_USAGE, turns: 1 });
    const outcome = readReply(reply, schema);
    if (outcome.ok) return { value: outcome.value, corrections: attempt - 1, via: outcome.via, usage };
    if (attempt > maxCorrections) throw withUsage(new OutputProtocolError({ label, attempts: attempt, lastReason: outcome.reason }), usage);
    text = correctionPrompt(outcome.reason, expectedShape(schema, jsonSchema));
  }
}

type ReplyOutcome<T> = ParsedOutput<T> | { readonly ok: true; readonly value: T; readonly via: 'structured' };

/** Structured output wins; text is the fallback, and a bad structured value explains the failure. */
function readReply<T>(reply: TurnReply, schema: z.ZodType<T>): ReplyOutcome<T> {
  const { structured } = reply;
  if (structured === undefined || structured === null) return parseModelOutput(reply.text, schema);
  const checked =
    typeof structured === 'string' ? parseModelOutput(structured, schema) : validateOutput(structured, schema);
  if (checked.ok) return { ok: true, value: checked.value, via: 'structured' };
  const fromText = parseModelOutput(reply.text, schema);
  return fromText.ok ? fromText : checked;
}

/**
 * The union's variants read better than the flattened tool schema, so describe the zod schema;
 * the tool schema is the fallback for a zod schema that cannot be converted (e.g. a cycle).
 */
function expectedShape(schema: z.ZodType, jsonSchema: object): string {
  try {
    return describeShape(z.toJSONSchema(schema, { unrepresentable: 'any' }));
  } catch {
    return describeShape(jsonSchema);
  }
}
