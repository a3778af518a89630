/** Settles like `promise`, or rejects with the signal's reason as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    // Also handles a late rejection after an abort, so it is never unhandled.
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
