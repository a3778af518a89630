import type { PluginInput } from '@opencode-ai/plugin';
import type { CommandRunner } from './plan-actions.js';
import { openCodeErrorText } from '../../text/opencode-error.js';

/**
 * An agenda `command` action through OpenCode's client: POST /session/:id/command, which runs the
 * command as if typed in that session and answers when its turn has ended.
 */
export function commandRunnerFromClient(client: PluginInput['client'], directory: string): CommandRunner {
  return async ({ sessionId, command, arguments: args }) => {
    const res = await client.session.command({ path: { id: sessionId }, body: { command, arguments: args }, query: { directory } });
    const data = res.data as { info?: { error?: unknown }; parts?: Array<{ type: string; text?: string; synthetic?: boolean }> } | undefined;
    if (!data?.info) throw new Error(`OpenCode did not run /${command} in session ${sessionId}: ${openCodeErrorText(res.error, 'no reason given')}`);
    if (data.info.error) throw new Error(`/${command} failed in session ${sessionId}: ${openCodeErrorText(data.info.error, 'no reason given')}`);
    const text = (data.parts ?? [])
      .filter((p) => p.type === 'text' && !p.synthetic)
      .map((p) => p.text ?? '')
      .join('\n');
    return { text };
  };
}
