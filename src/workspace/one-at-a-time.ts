/**
 * Runs each `run` given the same key after the previous one settled, in this process: git's records
 * and index files are not safe against two writers at once.
 */
export function oneAtATimeIn(queues: Map<string, Promise<unknown>>) {
  return function oneAtATime<T>(key: string, run: () => Promise<T>): Promise<T> {
    const next = (queues.get(key) ?? Promise.resolve()).then(run, run);
    const settled = next.catch(() => {});
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return next;
  };
}
