import { UiError } from '../config/ui-error.js';
import type { CommandContext } from './command.js';
import { RefusedError } from '../request-errors.js';
import { println } from './io.js';
import { rewindDeps } from './undo.js';

/**
 * `orca ui [--port N]`: the plan viewer for the project, on 127.0.0.1, until Ctrl-C (SIGINT) or
 * SIGTERM. Prints the URL to open; its token is the key for this run only.
 */
export async function uiCommand({ io, project, options }: CommandContext, stop: Promise<unknown> = stopSignal()): Promise<number> {
  // Loaded here: the other commands need neither the server nor the layout library.
  const { startUiServer } = await import('../ui/server.js');
  let server;
  try {
    // The page's Undo and Redo run on what orca undo and orca redo run on.
    server = await startUiServer({ project, port: options.port ?? 0, log: (_level, message) => println(io.stderr, `orca: ${message}`), rewind: await rewindDeps(project) });
  } catch (error) {
    if (error instanceof UiError) throw new RefusedError(error.message.replace('choose another port', 'choose another with --port N'));
    throw error;
  }
  println(io.stdout, `Orca plan viewer for ${project}`, `open ${server.url}`, '(127.0.0.1 only; the token in the URL is the key for this run; Ctrl-C stops it)');
  await stop;
  await server.stop();
  return 0;
}

function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
