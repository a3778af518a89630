/** The plan viewer cannot start: a bad setting or a port it cannot listen on. The message says what to change. */
export class UiError extends Error {
  override name = 'UiError';
}
