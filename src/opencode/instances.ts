import type { PluginInput } from '@opencode-ai/plugin';
import { openCodeErrorText } from '../text/opencode-error.js';

/**
 * OpenCode keeps one instance per directory it served (config, plugins, state) until told to let
 * it go: a step's worktree gets one, and a plan of many steps would keep them all. Once a worktree
 * is removed, its instance is disposed.
 */
export function closeDirectoryWith(client: PluginInput['client']) {
  return async (directory: string): Promise<void> => {
    const res = await client.instance.dispose({ query: { directory } });
    if (res.error) throw new Error(`OpenCode did not dispose its instance for ${directory}: ${openCodeErrorText(res.error)}`);
  };
}

/** OpenCode's client until the plugin's instance ends (clientUntilEnded). */
export interface EndingClient<T> {
  client: T;
  ended(): boolean;
  /** From now on every call is refused; resolves once the calls already sent are answered (or after `waitMs`). */
  end(waitMs: number): Promise<void>;
}

/**
 * OpenCode's client for a plugin whose instance may end: once ended, every call is refused (it rejects, naming the
 * call) instead of sent, and the end waits for the calls already sent. A call that carries the instance's directory
 * and reaches OpenCode after it disposed the instance boots it again, a second Orca with it, which takes the agenda's
 * and the plans' leases and writes into a folder the user may be removing: measured on 1.18.33, a session note's idle
 * check sent just before the dispose and answered 200 ms after it did, and so did a version check sent just after.
 */
export function clientUntilEnded<T extends object>(client: T): EndingClient<T> {
  let ended = false;
  const inFlight = new Set<Promise<unknown>>();
  const guard = <O extends object>(target: O, path: string): O =>
    new Proxy(target, {
      get(object, key) {
        const value: unknown = Reflect.get(object, key, object);
        if (typeof key !== 'string' || key.startsWith('_')) return value;
        if (typeof value === 'function') {
          return (...args: unknown[]) => {
            if (ended) return Promise.reject(new Error(`${path}.${key} not called: Orca stopped with its OpenCode instance`));
            const result = (value as (...a: unknown[]) => unknown).apply(object, args);
            if (!(result instanceof Promise)) return result;
            const settled = result.then(
              () => undefined,
              () => undefined,
            );
            inFlight.add(settled);
            void settled.then(() => inFlight.delete(settled));
            return result;
          };
        }
        return value !== null && typeof value === 'object' ? guard(value, `${path}.${key}`) : value;
      },
    });
  return {
    client: guard(client, 'client'),
    ended: () => ended,
    async end(waitMs) {
      ended = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        (timer as { unref?: () => void }).unref?.();
      });
      await Promise.race([Promise.all([...inFlight]), deadline]);
      clearTimeout(timer);
    },
  };
}
