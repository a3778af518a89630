/** How much of a bad input an error message repeats: enough to recognise it, never a whole payload. */
export const QUOTE_MAX = 100;

/**
 * A bad input as JSON for an error message, cut to about `max` characters with how long it was:
 * `"plan_xx…" (10,240 characters)`. Values JSON cannot show (undefined, functions) are named.
 */
export function quote(input: unknown, max = QUOTE_MAX): string {
  let text: string;
  try {
    text = input === undefined ? 'nothing' : typeof input === 'bigint' ? `${input}n` : (JSON.stringify(input) ?? String(input));
  } catch {
    // A cyclic object or a throwing toJSON: say what it is rather than fail while reporting a failure.
    text = Object.prototype.toString.call(input);
  }
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length.toLocaleString('en-US')} characters)`;
}
