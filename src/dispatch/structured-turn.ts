import { z } from 'zod';
import { abortable } from './abortable.js';
import { correctionPrompt } from './correction-prompt.js';
import { describeShape } from './expected-shape.js';
import type { CandidateSource } from './json-candidates.js';
import { OutputProtocolError } from './output-protocol-error.js';
import { parseModelOutput, validateOutput, type ParsedOutput } from './parse-output.js';

export interface TurnReply {
  /** The provider's structured output (OpenCode: `info.structured`), when it produced one. */
  readonly structured?: unknown;
  /** The reply's text, for models that answered in prose instead. */
  readonly text: string;
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
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const reply = await abortable(port.prompt(text, { jsonSchema, signal }), signal);
    const outcome = readReply(reply, schema);
    if (outcome.ok) return { value: outcome.value, corrections: attempt - 1, via: outcome.via };
    if (attempt > maxCorrections) throw new OutputProtocolError({ label, attempts: attempt, lastReason: outcome.reason });
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
