import { dueFirings, expiring, type DueFiring } from './due.js';
import { AgendaBlockedError } from './errors.js';
import type { ExecutedLine, FailedLine, StartedLine } from './events.js';
import { effectRecorded, inProcessEffect } from './in-process.js';
import type { AgendaLimits } from './limits.js';
import { keyOf, type AgendaPorts, type ExecutionRequest, type ExternalAction } from './ports.js';
import { checkGateCommands, checkPlanStart } from './rails.js';
import { isInProcess } from './schema.js';
import type { AgendaStore, ItemRecord } from './store.js';

/**
 * The tick (seed 002): expire → enqueue → drain. Due items go into an idempotent queue (a Map by
 * agendaId); the drain runs them wave by wave, breadth-first, and after each wave enqueues what
 * the wave's emits and schedules made due. Each firing runs at most once: `agenda.started` is
 * appended before its action, its outcome after; ticks never overlap; a firing found started
 * without an outcome at the first tick (a crash) is reconciled, never run again.
 */

export interface SchedulerOptions {
  limits: AgendaLimits;
  /** A firing that runs this long after it was due is marked late. */
  lateAfterMs: number;
  isPaused: () => boolean;
  newAgendaId: (nowMs: number) => string;
  newEventId: (nowMs: number) => string;
}

export interface FiringOutcome {
  agendaId: string;
  firing: number;
  status: 'executed' | 'failed';
  late: boolean;
  /** The result, or the error. */
  detail: string;
}

export interface TickReport {
  /** Why nothing ran: the agenda is paused, or the previous tick is still running. */
  skipped?: 'paused' | 'overlap';
  reconciled: FiringOutcome[];
  expired: string[];
  fired: FiringOutcome[];
  /** What a human should know: the cascade cap reached, a pause that stopped the drain. */
  notices: string[];
}

const emptyReport = (): TickReport => ({ reconciled: [], expired: [], fired: [], notices: [] });
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class Scheduler {
  private inFlight: Promise<TickReport> | null = null;
  private recovered = false;

  constructor(
    private readonly store: AgendaStore,
    private readonly ports: AgendaPorts,
    private readonly options: SchedulerOptions,
  ) {}

  /** One tick; a call while one runs does not start a second (a slow action is never run twice). */
  tick(): Promise<TickReport> {
    if (this.inFlight) return Promise.resolve({ ...emptyReport(), skipped: 'overlap' });
    this.inFlight = this.run().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** Resolves once no tick runs. */
  async idle(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
  }

  private async run(): Promise<TickReport> {
    const report = emptyReport();
    if (!this.recovered) {
      // Recording what a crashed firing did runs nothing, so it happens even while paused.
      await this.recover(report);
      this.recovered = true;
    }
    if (this.options.isPaused()) return { ...report, skipped: 'paused' };
    const now = this.ports.clock();
    for (const agendaId of expiring(this.store, now)) {
      this.store.append({ type: 'agenda.expired', at: this.at(), agendaId });
      report.expired.push(agendaId);
      this.tell('warning', 'Agenda item expired', `${agendaId}: ${this.store.item(agendaId)?.created.reason ?? ''}`);
    }
    const queue = new Map<string, DueFiring>();
    const ran = new Set<string>();
    const enqueue = () => {
      for (const due of dueFirings(this.store, now, this.options.lateAfterMs)) {
        if (!ran.has(due.agendaId) && !queue.has(due.agendaId)) queue.set(due.agendaId, due);
      }
    };
    enqueue();
    // Terminates: an item of wave k runs at depth ≥ k, and depth max_cascade_depth is refused without effects.
    while (queue.size > 0) {
      const wave = [...queue.values()];
      queue.clear();
      for (const due of wave) {
        if (this.options.isPaused()) {
          report.notices.push(`paused during a tick: ${wave.length} due item(s) wait for /agenda-resume`);
          return report;
        }
        ran.add(due.agendaId);
        const outcome = await this.fire(due, report);
        if (outcome) report.fired.push(outcome);
      }
      enqueue();
    }
    return report;
  }

  /** Run one due firing; null when it is no longer pending (a cancel earlier in the wave). */
  private async fire(due: DueFiring, report: TickReport): Promise<FiringOutcome | null> {
    const record = this.store.item(due.agendaId);
    if (!record || record.snapshot.value !== 'pending' || record.snapshot.context.firing + 1 !== due.firing) return null;
    const action = record.created.action;
    const started: StartedLine = {
      type: 'agenda.started',
      at: this.at(),
      agendaId: due.agendaId,
      firing: due.firing,
      ...(due.dueAt !== undefined ? { dueAt: due.dueAt } : {}),
      ...(due.late ? { late: true } : {}),
      ...(due.missed ? { missed: due.missed } : {}),
      ...(due.triggeredByEvent !== undefined ? { triggeredByEvent: due.triggeredByEvent } : {}),
      depth: due.depth,
    };
    const refusal = this.refusal(record, due);
    if (refusal) {
      if (refusal.rule === 'max_cascade_depth') {
        report.notices.push(`max_cascade_depth (${this.options.limits.max_cascade_depth}) reached: ${due.agendaId} was not run`);
        this.ports.log('warn', `agenda: ${refusal.message}`);
      }
      this.store.append(started, this.failed(due, refusal.message));
      return this.settled(record, due, 'failed', refusal.message);
    }
    if (isInProcess(action)) {
      let effect;
      try {
        effect = inProcessEffect(action, { ...this.options, reader: this.store, nowMs: this.ports.clock(), record, due });
      } catch (error) {
        this.store.append(started, this.failed(due, errorText(error)));
        return this.settled(record, due, 'failed', errorText(error));
      }
      this.store.append(started, ...effect.lines, this.executed(due, { result: effect.result }));
      return this.settled(record, due, 'executed', effect.result);
    }
    this.store.append(started);
    let outcome: ExecutedLine | FailedLine;
    try {
      outcome = this.executed(due, await this.ports.execute(this.request(record, due, action as ExternalAction)));
    } catch (error) {
      outcome = this.failed(due, errorText(error));
    }
    this.store.append(outcome);
    return this.settled(record, due, outcome.type === 'agenda.executed' ? 'executed' : 'failed', lineDetail(outcome));
  }

  /** Rails checked again when the firing runs: the cascade depth, gate commands, the daily plan budget. */
  private refusal(record: ItemRecord, due: DueFiring): AgendaBlockedError | null {
    const { limits } = this.options;
    try {
      if (due.depth >= limits.max_cascade_depth) {
        throw new AgendaBlockedError(
          'max_cascade_depth',
          `${due.agendaId} was fired at cascade depth ${due.depth} (limit ${limits.max_cascade_depth}); the cascade stops here`,
        );
      }
      checkGateCommands(record.created.action);
      if (record.created.action.type === 'plan') checkPlanStart(this.store, limits, this.ports.clock());
      return null;
    } catch (error) {
      if (error instanceof AgendaBlockedError) return error;
      throw error;
    }
  }

  /** Firings started before a crash and never finished: ask what happened, record it, run nothing. */
  private async recover(report: TickReport): Promise<void> {
    for (const record of this.store.items().filter((r) => r.snapshot.value === 'running')) {
      const firing = record.snapshot.context.firing;
      const { late, startedAt } = record.snapshot.context;
      const due: DueFiring = { agendaId: record.created.agendaId, firing, late, depth: record.created.depth, since: Date.parse(startedAt ?? record.created.at) };
      const action = record.created.action;
      let line: ExecutedLine | FailedLine;
      if (isInProcess(action)) {
        line = effectRecorded(this.store, record, firing)
          ? this.executed(due, { result: `${action.type}: its effect is in the log (reconciled after a restart)` }, true)
          : this.failed(due, 'interrupted by a restart before its effect was recorded; not run again', true);
      } else {
        try {
          const found = await this.ports.reconcile(this.request(record, due, action));
          line = found.outcome === 'executed' ? this.executed(due, found, true) : this.failed(due, found.error, true);
        } catch (error) {
          line = this.failed(due, `reconcile failed: ${errorText(error)}; not run again`, true);
        }
      }
      this.store.append(line);
      const outcome = this.settled(record, due, line.type === 'agenda.executed' ? 'executed' : 'failed', lineDetail(line), 'reconciled');
      report.reconciled.push(outcome);
    }
  }

  private request(record: ItemRecord, due: DueFiring, action: ExternalAction): ExecutionRequest {
    const { created } = record;
    return {
      agendaId: created.agendaId,
      firing: due.firing,
      idempotencyKey: keyOf(created.agendaId, due.firing),
      action,
      reason: created.reason,
      createdBy: created.createdBy,
      ...(created.sessionId !== undefined ? { sessionId: created.sessionId } : {}),
      late: due.late,
      ...(due.dueAt !== undefined ? { dueAt: due.dueAt } : {}),
      ...(due.triggeredByEvent !== undefined ? { triggeredByEvent: due.triggeredByEvent } : {}),
    };
  }

  private executed(due: DueFiring, r: { result: string; planId?: string; actualSessionId?: string }, reconciled = false): ExecutedLine {
    return {
      type: 'agenda.executed',
      at: this.at(),
      agendaId: due.agendaId,
      firing: due.firing,
      result: r.result,
      ...(due.triggeredByEvent !== undefined ? { triggeredByEvent: due.triggeredByEvent } : {}),
      ...(r.actualSessionId !== undefined ? { actualSessionId: r.actualSessionId } : {}),
      ...(r.planId !== undefined ? { planId: r.planId } : {}),
      ...(reconciled ? { reconciled } : {}),
    };
  }

  private failed(due: DueFiring, error: string, reconciled = false): FailedLine {
    return {
      type: 'agenda.failed',
      at: this.at(),
      agendaId: due.agendaId,
      firing: due.firing,
      error,
      ...(due.triggeredByEvent !== undefined ? { triggeredByEvent: due.triggeredByEvent } : {}),
      ...(reconciled ? { reconciled } : {}),
    };
  }

  /** Log and toast an outcome, and say it for the report. */
  private settled(record: ItemRecord, due: DueFiring, status: FiringOutcome['status'], detail: string, how = 'fired'): FiringOutcome {
    const late = due.late ? ` late${due.missed ? ` (${due.missed} slots passed, fired once)` : ''}` : '';
    const what = `${due.agendaId}${record.created.trigger.type === 'cron' ? ` firing ${due.firing}` : ''} ${how}${late}`;
    this.ports.log(status === 'executed' ? 'info' : 'warn', `agenda: ${what}: ${status}: ${detail}`);
    this.tell(status === 'executed' ? 'success' : 'error', `Agenda item ${status}${due.late ? ' late' : ''}`, `${what}: ${detail} (${record.created.reason})`);
    return { agendaId: due.agendaId, firing: due.firing, status, late: due.late, detail };
  }

  private tell(variant: 'info' | 'success' | 'warning' | 'error', title: string, message: string) {
    this.ports.toast({ variant, title, message: message.length > 300 ? `${message.slice(0, 300)}…` : message });
  }

  private at = () => new Date(this.ports.clock()).toISOString();
}

const lineDetail = (line: ExecutedLine | FailedLine) => (line.type === 'agenda.executed' ? line.result : line.error);
