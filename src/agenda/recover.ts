import type { DueFiring } from './due.js';
import type { ExecutedLine, FailedLine } from './events.js';
import { executedLine, executionRequest, failedLine } from './firing-lines.js';
import { effectRecorded } from './in-process.js';
import type { AgendaPorts, ExternalAction } from './ports.js';
import { isInProcess } from './schema.js';
import type { AgendaStore, ItemRecord } from './store.js';
import { errorMessage } from '../errors.js';

/**
 * Firings found started without an outcome when the agenda opens: the process that ran them died.
 * They are never run again. An in-process firing's effect is looked for in the log; for the
 * others the reconcile port says what happened (a `plan` action: the plan whose file records the
 * idempotency key). What was found is appended as the firing's outcome, marked `reconciled`.
 */
export async function reconcileInterrupted(
  store: AgendaStore,
  ports: Pick<AgendaPorts, 'reconcile'>,
  at: () => string,
): Promise<Array<{ record: ItemRecord; due: DueFiring; line: ExecutedLine | FailedLine }>> {
  const done = [];
  for (const record of store.items().filter((r) => r.snapshot.value === 'running')) {
    const { firing, late, startedAt, triggeredByEvent } = record.snapshot.context;
    const due: DueFiring = {
      agendaId: record.created.agendaId,
      firing,
      late,
      depth: record.created.depth,
      since: Date.parse(startedAt ?? record.created.at),
      ...(triggeredByEvent !== null ? { triggeredByEvent } : {}),
    };
    const action = record.created.action;
    let line: ExecutedLine | FailedLine;
    if (isInProcess(action)) {
      line = effectRecorded(store, record, firing)
        ? executedLine(due, { result: `${action.type}: its effect is in the log (reconciled after a restart)` }, at(), true)
        : failedLine(due, 'interrupted by a restart before its effect was recorded; not run again', at(), true);
    } else {
      try {
        const found = await ports.reconcile(executionRequest(record, due, action as ExternalAction));
        line = found.outcome === 'executed' ? executedLine(due, found, at(), true) : failedLine(due, found.error, at(), true);
      } catch (error) {
        line = failedLine(due, `reconcile failed: ${errorMessage(error)}; not run again`, at(), true);
      }
    }
    store.append(line);
    done.push({ record, due, line });
  }
  return done;
}
