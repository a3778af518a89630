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

/**
 * Calls given the same key while one runs share the next one, started once it settled: each caller
 * gets a result of a run that began after it asked (a snapshot of the tree as it was then or later),
 * and at most one runs per key. Four steps that snapshot the same tree at once cost two runs, not four.
 */
export function sharedNextIn<T>(turns: Map<string, { running: Promise<T>; next: Promise<T> | null }>) {
  return function sharedNext(key: string, run: () => Promise<T>): Promise<T> {
    const turn = turns.get(key);
    if (turn?.next) return turn.next;
    const settledThen = (promise: Promise<T>, then: () => void) => void promise.then(then, then);
    const forget = (entry: { running: Promise<T>; next: Promise<T> | null }, running: Promise<T>) =>
      settledThen(running, () => {
        if (turns.get(key) === entry && entry.running === running && entry.next === null) turns.delete(key);
      });
    if (!turn) {
      const entry = { running: run(), next: null as Promise<T> | null };
      turns.set(key, entry);
      forget(entry, entry.running);
      return entry.running;
    }
    const next: Promise<T> = turn.running.then(
      () => start(),
      () => start(),
    );
    function start() {
      turn!.running = next;
      turn!.next = null;
      forget(turn!, next);
      return run();
    }
    turn.next = next;
    return next;
  };
}
