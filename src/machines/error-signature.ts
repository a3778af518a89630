import type { ReviewError } from './types.js';

/**
 * What makes two errors "the same" for the circuit breaker (the same error `breakers.same_error`
 * times in a row, 3 by default, stops automatic retrying: docs/design.md, "Breakers and limits"):
 * the text without its incidental details. Numbers (line numbers, durations, counts), hex and
 * ULID-like ids, quoted temp paths' random parts and whitespace differ between runs of the same
 * failure; the words around them do not.
 */
export function errorSignature(error: string): string {
  return error
    .toLowerCase()
    .replace(/\b(ses|msg|prt|plan|call|toolu)_[0-9a-z]+/g, '$1_#')
    .replace(/\b[0-9a-f]{8,}\b/g, '#')
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}

/** Whether the last `limit` signatures are one and the same. */
export function repeatedSignature(signatures: Array<string | undefined>, limit: number): string | null {
  if (signatures.length < limit) return null;
  const last = signatures.slice(-limit);
  const first = last[0];
  return first !== undefined && last.every((s) => s === first) ? first : null;
}

/** One signature for a reviewer's whole FAIL: which checks failed where, not the wording of the fix. */
export function reviewSignature(errors: ReviewError[]): string {
  return errorSignature(
    errors
      .map((e) => `${e.category}|${e.file}|${e.issue}`)
      .sort()
      .join(';'),
  );
}
