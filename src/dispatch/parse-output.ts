import type { z } from 'zod';
import { findJsonCandidates, stripReasoning, type CandidateSource } from './json-candidates.js';
import { formatIssues } from './format-issues.js';

export type ParsedOutput<T> =
  | { readonly ok: true; readonly value: T; readonly via: CandidateSource }
  | { readonly ok: false; readonly reason: string };

export const NO_JSON_REASON = 'no JSON object found in the reply';
export const TRUNCATED_JSON_REASON =
  'the JSON object in the reply is incomplete (unbalanced braces; was it cut off?)';

/**
 * Finds the model's JSON answer in free text and validates it. Reasoning blocks are ignored
 * unless nothing else holds JSON; the first candidate that passes `schema` wins, and on failure
 * the reason names what the most deliberate candidate got wrong.
 */
export function parseModelOutput<T>(text: string, schema: z.ZodType<T>): ParsedOutput<T> {
  let search = findJsonCandidates(stripReasoning(text));
  if (search.candidates.length === 0) search = findJsonCandidates(text);

  let firstFailure: string | undefined;
  for (const { via, value } of search.candidates) {
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data, via };
    firstFailure ??= formatIssues(result.error.issues);
  }
  if (search.truncated) return { ok: false, reason: TRUNCATED_JSON_REASON };
  return { ok: false, reason: firstFailure ?? NO_JSON_REASON };
}

/** Validates an already-parsed value, with the same concise reason as parseModelOutput. */
export function validateOutput<T>(
  value: unknown,
  schema: z.ZodType<T>,
): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string } {
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false, reason: formatIssues(result.error.issues) };
}
