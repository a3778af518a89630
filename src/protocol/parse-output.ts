/**
 * How a model's reply is read (the text protocol). The answer is the JSON object the reply ENDS
 * with: every top-level object is found with its position (bare, in a ``` fence, in a tag such as
 * <output>…</output>), and the one that ends last is the answer. So:
 * - a draft then a final object: the final one, even when the draft is valid and the final is not
 *   (the correction then names what is wrong with the final one, never the draft);
 * - an example or a quoted object (`{"type":"failure",…}`) before the answer: the answer;
 * - a fenced object followed by a closing sentence: the fenced object (prose after it is allowed,
 *   braces in prose such as `{}` or `{ retries: 3 }` are not objects; a second JSON object after
 *   it would be the answer);
 * - a tool call written as text (`{"name":…,"arguments":{…}}`), then the answer: the answer; a tool
 *   call that is itself the last object is read as its arguments;
 * - an object inside another (a step inside a plan) is never an answer of its own: a broken plan
 *   is reported as the plan's problem;
 * - `<think>` blocks are ignored (only when nothing outside them holds an object is the reasoning
 *   searched); a reply that ends inside an object that never closes was cut off.
 * The answer may be JSONC (comments, trailing commas), and a few slips that cannot change its
 * meaning are coerced before validation (normalize-output.ts); what was forgiven is returned as
 * `coerced`, for the plan's journal.
 */
import type { z } from 'zod';
import { findJsonCandidates, stripReasoning, type CandidateSearch, type CandidateSource } from './json-candidates.js';
import { formatIssues } from './format-issues.js';
import { normalizeOutput } from './normalize-output.js';

export type ParsedOutput<T> =
  | { readonly ok: true; readonly value: T; readonly via: CandidateSource; readonly coerced: string[] }
  | { readonly ok: false; readonly reason: string };

export const NO_JSON_REASON = 'no JSON object found in the reply';
export const TRUNCATED_JSON_REASON =
  'the JSON object in the reply is incomplete (unbalanced braces; was it cut off?)';

/** Finds the model's answer, the last JSON object of the reply, and validates it (see the top of this file). */
export function parseModelOutput<T>(text: string, schema: z.ZodType<T>): ParsedOutput<T> {
  const search = searchReply(text);
  if (search.truncated) return { ok: false, reason: TRUNCATED_JSON_REASON };
  const answer = search.candidates.at(-1);
  if (!answer) return { ok: false, reason: NO_JSON_REASON };
  const which = search.candidates.length > 1 ? ` (the last of the reply's ${search.candidates.length} JSON objects, which is its answer)` : '';
  if (answer.error !== undefined) return { ok: false, reason: `the JSON object is not valid JSON: ${answer.error}${which}` };

  let firstFailure: string | undefined;
  for (const reading of answer.readings) {
    const result = validateOutput(reading, schema);
    if (result.ok) return { ok: true, value: result.value, via: answer.via, coerced: [...answer.tolerated, ...result.coerced] };
    firstFailure ??= result.reason;
  }
  return { ok: false, reason: `${firstFailure ?? NO_JSON_REASON}${which}` };
}

/** The reply without its reasoning; the reasoning only when nothing else holds an object. */
function searchReply(text: string): CandidateSearch {
  const search = findJsonCandidates(stripReasoning(text));
  return search.candidates.length === 0 && !search.truncated ? findJsonCandidates(text) : search;
}

/**
 * Validates an already-parsed value (structured output, or a candidate of the reply) after
 * coercing the slips of its output type, with the same concise reason as parseModelOutput.
 */
export function validateOutput<T>(
  value: unknown,
  schema: z.ZodType<T>,
): { readonly ok: true; readonly value: T; readonly coerced: string[] } | { readonly ok: false; readonly reason: string } {
  const normalized = normalizeOutput(value);
  const result = schema.safeParse(normalized.value);
  return result.success ? { ok: true, value: result.data, coerced: normalized.coerced } : { ok: false, reason: formatIssues(result.error.issues) };
}
