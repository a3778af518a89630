import { InvalidPlanIdError, PlanNotFoundError } from '../persistence/errors.js';
import { isPlanId } from '../persistence/plan-id.js';
import { InspectorError } from '../config/inspector-error.js';
import { startInspector } from './inspector.js';
import { replayPlan, type ReplayResult } from './replay.js';

export interface InspectPlanOptions {
  /** The project directory, the one holding .opencode/plans. */
  dir: string;
  /** Relay port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Return right after the replay instead of serving the inspector until Ctrl-C (tests, scripts). */
  once?: boolean;
  /** Stop serving when this aborts, as Ctrl-C does. */
  signal?: AbortSignal;
  /** Where the report goes, one line per call; console.log by default. */
  print?: (line: string) => void;
  /** Where a failure is told, one line; console.error by default. */
  printError?: (line: string) => void;
}

/**
 * `orca inspect <plan_id>`: replay the plan into the Stately inspector and serve it until Ctrl-C.
 * Exit codes as the CLI's: 0 the replay ends in the state of the plan file; 1 it does not (the page
 * still shows it), or nothing could be shown (no such plan, unreadable plan, busy port); 2 the
 * plan_id is malformed.
 */
export async function inspectPlan(planId: string, options: InspectPlanOptions): Promise<number> {
  const { dir, port = 0, once = false, signal } = options;
  const print = options.print ?? ((line: string) => console.log(line));
  const fail = (message: string, code = 1) => {
    (options.printError ?? ((line: string) => console.error(line)))(`orca: ${message}`);
    return code;
  };
  if (!isPlanId(planId)) return fail(new InvalidPlanIdError(planId).message.replace('orca_list_plans', 'orca plans'), 2);
  let inspector;
  try {
    inspector = await startInspector({ port });
  } catch (error) {
    if (error instanceof InspectorError) return fail(error.message);
    throw error;
  }
  try {
    const result = await replayPlan(dir, planId, inspector);
    for (const line of describeReplay(result)) print(line);
    if (!once) {
      print(`Open ${inspector.url} in a browser (it frames stately.ai/inspect: needs internet). Ctrl-C to stop.`);
      await untilInterrupted(signal);
    }
    return result.matches ? 0 : 1;
  } catch (error) {
    if (error instanceof PlanNotFoundError) return fail(`Plan ${planId} does not exist in ${dir} (orca plans lists the plans).`);
    if (error instanceof InspectorError) return fail(error.message);
    throw error;
  } finally {
    await inspector.stop();
  }
}

export function describeReplay(result: ReplayResult): string[] {
  const lines =
    result.source === 'journal'
      ? [`Replayed ${result.events} journaled events of ${result.planId}: ${result.path.join(' → ')}`]
      : [`${result.planId} has no journal to replay from its start; showing its saved state ${result.replayedState}.`];
  if (result.matches) lines.push(`The replay ends in the saved state ${result.savedState}.`);
  else {
    lines.push(
      `The replay ends in ${result.replayedState} but the plan file says ${result.savedState}: ` +
        'the journal is incomplete or the machine changed since the plan ran.',
    );
  }
  return lines;
}

/** Resolves on Ctrl-C, SIGTERM or `signal`; removes its listeners. */
function untilInterrupted(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    if (signal?.aborted) return resolve();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
