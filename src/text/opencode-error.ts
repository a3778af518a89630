/**
 * An error OpenCode's client returned or a session recorded, in one line: its `{ name, data: { message } }`,
 * an Error, a string, or anything else as (at most 300 characters of) JSON. `absent` says what a missing
 * error means where it is read (no response, no reason given).
 */
export function openCodeErrorText(error: unknown, absent = 'unknown error'): string {
  if (error === undefined || error === null || error === '') return absent;
  if (typeof error === 'string') return error;
  const e = error as { name?: string; data?: { message?: string }; message?: string };
  return [e.name, e.data?.message ?? e.message].filter(Boolean).join(': ') || JSON.stringify(error).slice(0, 300);
}
