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
