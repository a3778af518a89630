/**
 * What makes two errors "the same" for the circuit breaker (seed 003: same error 3 times → stop):
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
