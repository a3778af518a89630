/**
 * Slips a real model makes in an otherwise good answer, made right before validation so the zod
 * schemas (and the JSON schemas and prompts generated from them) stay strict. Only what cannot
 * change the plan's meaning is coerced: a string where a list of strings is expected, a missing
 * `artifacts` on a success (a read-only step changed nothing), a reviewer's line written as text
 * ("8", "8-10"). An unknown agent or type, a missing id, a dependency cycle are left for the schema
 * to reject, so the model is asked again with the field named.
 */

/** The value to validate and, in words, what was coerced: `key_findings: a string taken as a one-item list`. */
export interface NormalizedOutput {
  readonly value: unknown;
  readonly coerced: string[];
}

type Rules = (output: Record<string, unknown>, coerced: string[]) => void;

/** The rules of each output type, by its `type`: the planner's plan, a specialist's success, a reviewer's fail. */
const RULES: Record<string, Rules> = {
  plan(plan, coerced) {
    for (const key of ['assumptions', 'risks', 'verification', 'relevant_files']) listOfStrings(plan, key, key, coerced);
    if (!Array.isArray(plan.steps)) return;
    plan.steps.forEach((step, index) => {
      if (!isRecord(step)) return;
      for (const key of ['files', 'depends_on']) listOfStrings(step, key, `steps[${index}].${key}`, coerced);
    });
  },
  success(success, coerced) {
    if (success.artifacts === undefined) {
      success.artifacts = [];
      coerced.push('artifacts: missing, taken as none (nothing was changed)');
    }
    listOfStrings(success, 'artifacts', 'artifacts', coerced);
    listOfStrings(success, 'key_findings', 'key_findings', coerced);
  },
  fail(review, coerced) {
    if (!Array.isArray(review.errors)) return;
    review.errors.forEach((error, index) => {
      if (isRecord(error)) lineNumber(error, `errors[${index}].line`, coerced);
    });
  },
};

/** `value` with the slips of its output type coerced; anything else is returned as it is. */
export function normalizeOutput(value: unknown): NormalizedOutput {
  const rules = isRecord(value) && typeof value.type === 'string' ? RULES[value.type] : undefined;
  if (!rules) return { value, coerced: [] };
  const copy = structuredClone(value) as Record<string, unknown>;
  const coerced: string[] = [];
  rules(copy, coerced);
  return coerced.length === 0 ? { value, coerced } : { value: copy, coerced };
}

/** A string where a list of strings is expected: a one-item list (an empty string: an empty list). */
function listOfStrings(record: Record<string, unknown>, key: string, path: string, coerced: string[]): void {
  const value = record[key];
  if (typeof value !== 'string') return;
  if (value.trim() === '') {
    record[key] = [];
    coerced.push(`${path}: an empty string taken as an empty list`);
  } else {
    record[key] = [value];
    coerced.push(`${path}: a string taken as a one-item list`);
  }
}

/** "8", "L8", "line 8", "8-10", "8–10", "8..10", "8 to 10". */
const LINE_TEXT = /^\s*(?:lines?\s*|L)?(\d+)\s*(?:(?:-|–|—|\.\.|to)\s*L?(\d+))?\s*$/i;

/** A line written as text: its number, and a range's end as `line_end`. */
function lineNumber(error: Record<string, unknown>, path: string, coerced: string[]): void {
  const text = error.line;
  if (typeof text !== 'string') return;
  const match = LINE_TEXT.exec(text);
  if (!match) return;
  const line = Number(match[1]);
  const end = match[2] === undefined ? undefined : Number(match[2]);
  error.line = line;
  const range = end !== undefined && end !== line && error.line_end === undefined;
  if (range) error.line_end = end;
  coerced.push(`${path}: the text ${JSON.stringify(text.trim())} taken as line ${line}${range ? ` (to line ${end}, line_end)` : ''}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
