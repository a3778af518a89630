import { dueFirings, expiring, type DueFiring } from './due.js';
import { AgendaBlockedError } from './errors.js';
import type { ExecutedLine, FailedLine } from './events.js';
import { executedLine, executionRequest, failedLine, outcomeDetail, startedLine } from './firing-lines.js';
import { inProcessEffect } from './in-process.js';
import type { AgendaLimits } from './limits.js';
import type { AgendaPorts, ExternalAction } from './ports.js';
import { checkGateCommands, checkPlanStart } from './rails.js';
import { reconcileInterrupted } from './recover.js';
import { isInProcess } from './schema.js';
import type { AgendaStore, ItemRecord } from './store.js';
import { errorMessage } from '../errors.js';

/**
 * The tick (docs/design.md, "The tick"): expire → enqueue → drain. Due items go into an idempotent
 * queue (a Map by agendaId); the drain runs them wave by wave, breadth-first, and after each wave
 * enqueues what the wave's emits and schedules made due. Each firing runs at most once:
 * `agenda.started` is appended before its action, its outcome after; ticks never overlap; a firing
 * found started without an outcome at the first tick (a crash) is reconciled, never run again.
 *
 * A firing that needs OpenCode (plan, resume, command) runs beside the tick, not inside it: its
 * plan may take up to a minute to reach its first stop, and the other due items, in this wave and
 * in the ticks after, fire on time meanwhile. Its item is `running` until the outcome is appended
 * (the item chart), so no later tick fires it again; `tick()` still resolves with the outcomes of
 * the firings it started, and `idle()` waits for every firing in flight.
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

/** A firing's outcome as the tick collects it: now (refused, in-process) or once its action has run. */
type Fired = FiringOutcome | Promise<FiringOutcome>;

export class Scheduler {
  /** The tick's own work: expire, enqueue, start the due firings. */
  private inFlight: Promise<unknown> | null = null;
  /** Firings whose action still runs (they may outlive the tick that started them). */
  private readonly firings = new Set<Promise<unknown>>();
  private recovered = false;

  constructor(
    private readonly store: AgendaStore,
    private readonly ports: AgendaPorts,
    private readonly options: SchedulerOptions,
  ) {}

  /**
   * One tick; a call while one runs does not start a second. It resolves once the firings it
   * started have their outcomes, but the next tick does not wait for them: it runs as soon as this
   * one has started its firings.
   */
  tick(): Promise<TickReport> {
    if (this.inFlight) return Promise.resolve({ ...emptyReport(), skipped: 'overlap' });
    const fired: Fired[] = [];
    const body = this.run(fired);
    const done = () => {
      this.inFlight = null;
    };
    this.inFlight = body.then(done, done);
    return body.then(async (report) => ({ ...report, fired: await Promise.all(fired) }));
  }

  /** Resolves once no tick runs and no firing is in flight; a failure is reported by whoever started the tick, not here. */
  async idle(): Promise<void> {
    while (this.inFlight || this.firings.size > 0) {
      await Promise.allSettled([this.inFlight, ...this.firings]);
    }
  }

  private async run(fired: Fired[]): Promise<TickReport> {
    const report = emptyReport();
    if (!this.recovered) {
      // Recording what a crashed firing did runs nothing, so it happens even while paused.
      for (const { record, due, line } of await reconcileInterrupted(this.store, this.ports, this.at)) {
        report.reconciled.push(this.settled(record, due, line, 'reconciled'));
      }
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
      for (const [index, due] of wave.entries()) {
        if (this.options.isPaused()) {
          report.notices.push(`paused during a tick: ${wave.length - index} due item(s) wait for /agenda-resume`);
          return report;
        }
        ran.add(due.agendaId);
        const outcome = this.fire(due, report);
        if (outcome) fired.push(outcome);
      }
      enqueue();
    }
    return report;
  }

  /**
   * Run one due firing; null when it is no longer pending (a cancel earlier in the wave). A refused
   * or in-process firing is done when this returns; an external one has its `agenda.started` line
   * written and its action started, and the promise settles with its outcome.
   */
  private fire(due: DueFiring, report: TickReport): Fired | null {
    const record = this.store.item(due.agendaId);
    if (!record || record.snapshot.value !== 'pending' || record.snapshot.context.firing + 1 !== due.firing) return null;
    const action = record.created.action;
    const started = startedLine(due, this.at());
    const refusal = this.refusal(record, due);
    if (refusal) {
      if (refusal.rule === 'max_cascade_depth') {
        report.notices.push(`max_cascade_depth (${this.options.limits.max_cascade_depth}) reached: ${due.agendaId} was not run`);
        this.ports.log('warn', `agenda: ${refusal.message}`);
      }
      const failed = failedLine(due, refusal.message, this.at());
      this.store.append(started, failed);
      return this.settled(record, due, failed);
    }
    if (isInProcess(action)) {
      let effect;
      try {
        effect = inProcessEffect(action, { ...this.options, reader: this.store, nowMs: this.ports.clock(), record, due });
      } catch (error) {
        const failed = failedLine(due, errorMessage(error), this.at());
        this.store.append(started, failed);
        return this.settled(record, due, failed);
      }
      const executed = executedLine(due, { result: effect.result }, this.at());
      this.store.append(started, ...effect.lines, executed);
      return this.settled(record, due, executed);
    }
    this.store.append(started);
    const firing = this.runExternal(record, due, action as ExternalAction);
    this.firings.add(firing);
    // Its failure to record an outcome reaches the tick's caller (tickInBackground logs it); never unhandled meanwhile.
    firing.then(
      () => this.firings.delete(firing),
      () => this.firings.delete(firing),
    );
    return firing;
  }

  private async runExternal(record: ItemRecord, due: DueFiring, action: ExternalAction): Promise<FiringOutcome> {
    let outcome: ExecutedLine | FailedLine;
    try {
      outcome = executedLine(due, await this.ports.execute(executionRequest(record, due, action)), this.at());
    } catch (error) {
      outcome = failedLine(due, errorMessage(error), this.at());
    }
    this.store.append(outcome);
    return this.settled(record, due, outcome);
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

  /** Log and toast an outcome, and say it for the report. */
  private settled(record: ItemRecord, due: DueFiring, line: ExecutedLine | FailedLine, how = 'fired'): FiringOutcome {
    const status = line.type === 'agenda.executed' ? 'executed' : 'failed';
    const detail = outcomeDetail(line);
    const late = due.late ? ` late${due.missed ? ` (${due.missed} slots passed, fired once)` : ''}` : '';
    const what = `${due.agendaId}${record.created.trigger.type === 'cron' ? ` firing ${due.firing}` : ''} ${how}${late}`;
    this.ports.log(status === 'executed' ? 'info' : 'warn', `agenda: ${what}: ${status}: ${detail}`);
    const title = `Agenda item ${status}${due.late ? ' late' : ''}`;
    this.tell(status === 'executed' ? 'success' : 'error', title, `${what}: ${detail} (${record.created.reason})`);
    return { agendaId: due.agendaId, firing: due.firing, status, late: due.late, detail };
  }

  private tell(variant: 'info' | 'success' | 'warning' | 'error', title: string, message: string) {
    this.ports.toast({ variant, title, message: message.length > 300 ? `${message.slice(0, 300)}…` : message });
  }

  private at = () => new Date(this.ports.clock()).toISOString();
}

