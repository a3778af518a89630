import { uiSettings, type UiOption } from '../config/ui-settings.js';
import { UiError } from '../config/ui-error.js';
import type { RewindDeps } from '../rewind/rewind-plan.js';

export interface PluginUi {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * For the plugin: the plan viewer when the user opted in (plugin option `ui`, ORCA_UI=1), else
 * null. Its URL goes to the log and a toast. It is an aid: a bad setting or a busy port is logged
 * and the plugin runs without it. Its Undo and Redo run on the plugin's own `rewind` (as /orca-undo does).
 */
export async function startConfiguredUi(
  option: UiOption | undefined,
  directory: string,
  { log, toast, rewind }: { log: (level: 'info' | 'warn', message: string) => void; toast: (message: string) => void; rewind: RewindDeps },
  env: Record<string, string | undefined> = process.env,
): Promise<PluginUi | null> {
  try {
    const settings = uiSettings(option, env);
    if (!settings) return null;
    // Loaded only when opted in: the server and its layout library stay out of every other start.
    const { startUiServer } = await import('./server.js');
    const server = await startUiServer({ project: directory, port: settings.port, log, rewind });
    log('info', `Orca plan viewer: open ${server.url}`);
    toast(`Plan viewer: ${server.url}`);
    return server;
  } catch (error) {
    if (!(error instanceof UiError)) throw error;
    log('warn', `${error.message} Orca runs without the plan viewer.`);
    return null;
  }
}
