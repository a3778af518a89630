import type { AgendaItemStatus } from '../machines/agenda-item.machine.js';
import { parseWith, prepareCreated, type NewItem } from './create.js';
import { AgendaInputError, AgendaStateError, quote } from './errors.js';
import type { BusEmittedLine, CancelledLine, StoreEvent } from './events.js';
import { newAgendaId, newEventId, parseAgendaId } from './ids.js';
import { DEFAULT_AGENDA_LIMITS, type AgendaLimits } from './limits.js';
import { matches, parsePattern, patternsOf } from './matching.js';
import { readPaused, writePaused } from './pause.js';
import { reconcileUnknown, unrefInterval, type AgendaPorts } from './ports.js';
import { checkEmit, sessionOf } from './rails.js';
import { Scheduler, type TickReport } from './scheduler.js';
import { emitAction, KIND } from './schema.js';
import { AgendaStore, type ItemRecord, type LoadProblem } from './store.js';
import { busView, itemView, type AgendaItemView, type BusEventView } from './view.js';
import { errorMessage } from '../errors.js';

/**
 * The agenda the plugin holds: the store, the pause flag and the tick, behind the operations the
 * tools, commands and CLI need. Every change is a line appended to the log; every read is memory.
 */

export interface AgendaOptions {
  /** The project directory; the files live in `.opencode/agenda/`. */
  directory: string;
  limits?: Partial<AgendaLimits>;
  /** A firing that runs this long after it was due is marked late (default 60). */
  lateAfterSeconds?: number;
  ports: Pick<AgendaPorts, 'execute'> & Partial<AgendaPorts>;
}

/** `active` (default): pending or running. `sessionId`: the items of a session (a command's target session, else its creator's). */
export type ItemFilter = { status?: AgendaItemStatus | 'active' | 'all'; sessionId?: string };

export const DEFAULT_POLL_SECONDS = 5;
export const DEFAULT_LATE_AFTER_SECONDS = 60;

export class Agenda {
  readonly limits: AgendaLimits;
  /** Lines of events.jsonl that were skipped, and a config.json that was not understood. */
  readonly problems: readonly LoadProblem[];
  readonly configProblem: string | undefined;
  private isPaused: boolean;
  private readonly ports: AgendaPorts;
  private readonly scheduler: Scheduler;
  private stopTimer: (() => void) | null = null;

  private constructor(
    private readonly directory: string,
    private readonly store: AgendaStore,
    options: AgendaOptions,
  ) {
    // An option left unset (undefined, as zod leaves it) keeps its default.
    const given = Object.entries(options.limits ?? {}).filter(([, value]) => value !== undefined);
    this.limits = { ...DEFAULT_AGENDA_LIMITS, ...Object.fromEntries(given) };
    this.ports = {
      clock: Date.now,
      reconcile: reconcileUnknown,
      log: () => {},
      toast: () => {},
      every: unrefInterval,
      ...options.ports,
    };
    const pause = readPaused(directory);
    this.isPaused = pause.paused;
    this.configProblem = pause.problem;
    this.problems = store.problems;
    for (const p of store.problems) this.ports.log('warn', `agenda: ${store.path}:${p.line} skipped: ${p.reason}`);
    if (pause.problem) this.ports.log('warn', `agenda: ${pause.problem}`);
    this.scheduler = new Scheduler(store, this.ports, {
      limits: this.limits,
      lateAfterMs: (options.lateAfterSeconds ?? DEFAULT_LATE_AFTER_SECONDS) * 1000,
      isPaused: () => this.isPaused,
      newAgendaId,
      newEventId,
    });
  }

  /** Read `.opencode/agenda/` once; a corrupt line is reported in `problems`, never fatal. */
  static open(options: AgendaOptions): Agenda {
    return new Agenda(options.directory, AgendaStore.open(options.directory), options);
  }

  get paused(): boolean {
    return this.isPaused;
  }

  create(item: NewItem): AgendaItemView {
    const now = this.ports.clock();
    const line = prepareCreated(this.store, item, this.limits, now, newAgendaId(now));
    this.store.append(line);
    return this.get(line.agendaId);
  }

  cancel(agendaId: string, reason = 'cancelled'): AgendaItemView {
    const record = this.record(agendaId);
    this.store.append(this.cancelLine(record, reason));
    return itemView(record);
  }

  /** Cancel every pending item (one write); items running a firing finish it first. */
  clear(reason = 'cleared'): AgendaItemView[] {
    const pending = this.store.items().filter((r) => r.snapshot.value === 'pending');
    if (pending.length > 0) this.store.append(...pending.map((r) => this.cancelLine(r, reason)));
    return pending.map(itemView);
  }

  pause(): void {
    writePaused(this.directory, true);
    this.isPaused = true;
  }

  /** For a human only (/agenda-resume, the CLI): no tool offers it. */
  resume(): void {
    writePaused(this.directory, false);
    this.isPaused = false;
  }

  /** The agenda tool's emit and `orca emit`: `kind` or `kind:subject`; a session is held to max_emits_per_session_per_hour. */
  emit(kind: string, message: string, from: { sessionId?: string; source?: 'tool' | 'cli' } = {}): BusEventView {
    parseWith(emitAction, 'event', { type: 'emit', kind, message });
    const now = this.ports.clock();
    checkEmit(this.store, from.sessionId, this.limits, now);
    const { kind: k, subject } = parsePattern(kind);
    return this.appendBus(now, { kind: k, subject, message, sessionId: from.sessionId, source: from.source ?? 'tool' });
  }

  /**
   * Orca's own lifecycle (plan.completed, step.failed, gate.waiting…, subject the plan_id). Recorded
   * only when a pending item listens for it (items see only events after their creation, so an
   * event no one waits for can fire nothing); returns null then. `depth`: the cascade depth of the
   * item firing that started the plan, plus one (a plan an item started is part of its cascade).
   */
  publish(kind: string, subject: string, message: string, { depth = 0 }: { depth?: number } = {}): BusEventView | null {
    if (!KIND.test(kind) || !/^\S{1,200}$/.test(subject)) {
      throw new AgendaInputError(
        `Invalid lifecycle event ${quote(`${kind}:${subject}`)}: expected a kind like "plan.completed" and a subject without spaces.`,
      );
    }
    const event = { kind, subject };
    const listens = (r: ItemRecord) =>
      r.snapshot.value === 'pending' && r.created.trigger.type === 'event' && patternsOf(r.created.trigger).some((p) => matches(p, event));
    const heard = this.store.items().some(listens);
    return heard ? this.appendBus(this.ports.clock(), { kind, subject, message, source: 'orca', depth }) : null;
  }

  /** Items in creation order; by default the pending and running ones. */
  list(filter: ItemFilter = {}): AgendaItemView[] {
    const status = filter.status ?? 'active';
    return this.store
      .items()
      .filter((r) => status === 'all' || (status === 'active' ? r.snapshot.status === 'active' : r.snapshot.value === status))
      .filter((r) => filter.sessionId === undefined || sessionOf(r.created) === filter.sessionId)
      .map(itemView);
  }

  get(agendaId: string): AgendaItemView {
    return itemView(this.record(agendaId));
  }

  /** The last `limit` bus events, oldest first; `kindFilter` is matched like a trigger ("kind" or "kind:subject"). */
  events({ limit = 20, kindFilter }: { limit?: number; kindFilter?: string } = {}): BusEventView[] {
    const pattern = kindFilter === undefined ? undefined : parsePattern(kindFilter);
    const all = this.store.bus().filter((e) => !pattern || matches(pattern, e));
    return all.slice(Math.max(0, all.length - limit)).map(busView);
  }

  /** One tick now (also what the timer runs); a tick already running is not run twice. */
  tick(): Promise<TickReport> {
    return this.scheduler.tick();
  }

  /** Tick now (late items, interrupted firings) and every `pollSeconds` after, on a timer that never keeps the process alive. */
  start(pollSeconds = DEFAULT_POLL_SECONDS): void {
    if (this.stopTimer) return;
    this.stopTimer = this.ports.every(pollSeconds * 1000, () => this.tickInBackground());
    this.tickInBackground();
  }

  /** Stop the timer and wait for a tick in flight. */
  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = null;
    await this.scheduler.idle();
  }

  /**
   * Every line of each item, in order (creation first), then every line appended from now on: what
   * the inspector's item actors are fed. A listener that throws is logged and kept.
   */
  observe(listener: (line: StoreEvent) => void): () => void {
    const safe = (line: StoreEvent) => {
      try {
        listener(line);
      } catch (error) {
        this.ports.log('warn', `agenda: an observer failed on ${line.type}: ${errorMessage(error)}`);
      }
    };
    for (const record of this.store.items()) [record.created, ...record.lines].forEach(safe);
    return this.store.subscribe((lines) => lines.forEach(safe));
  }

  /** A tick now, not awaited: its notices become toasts, a failure is logged and toasted. */
  tickInBackground(): void {
    this.scheduler.tick().then(
      (report) => {
        for (const notice of report.notices) this.ports.toast({ variant: 'warning', title: 'Agenda', message: notice });
      },
      (error: unknown) => {
        const message = `agenda tick failed: ${errorMessage(error)}`;
        this.ports.log('error', message);
        this.ports.toast({ variant: 'error', title: 'Agenda', message });
      },
    );
  }

  private record(agendaId: string): ItemRecord {
    const record = this.store.item(parseAgendaId(agendaId));
    if (!record) throw new AgendaInputError(`${agendaId} does not exist: /agenda, orca agenda and the agenda tool's list show the items of this project.`);
    return record;
  }

  private cancelLine(record: ItemRecord, reason: string): CancelledLine {
    const { value, context } = record.snapshot;
    if (value === 'running') {
      throw new AgendaStateError(`${context.agendaId} is running firing ${context.firing}; cancel it once that firing has finished.`);
    }
    if (value !== 'pending') throw new AgendaStateError(`${context.agendaId} is ${String(value)}: only a pending item can be cancelled.`);
    return { type: 'agenda.cancelled', at: new Date(this.ports.clock()).toISOString(), agendaId: context.agendaId, reason };
  }

  private appendBus(
    nowMs: number,
    e: Pick<BusEmittedLine, 'kind' | 'message' | 'source'> & { subject?: string; sessionId?: string; depth?: number },
  ): BusEventView {
    const line: BusEmittedLine = {
      type: 'bus.emitted',
      at: new Date(nowMs).toISOString(),
      eventId: newEventId(nowMs),
      kind: e.kind,
      ...(e.subject !== undefined ? { subject: e.subject } : {}),
      message: e.message,
      ...(e.sessionId !== undefined ? { sessionId: e.sessionId } : {}),
      source: e.source,
      depth: e.depth ?? 0,
    };
    this.store.append(line);
    return busView({ ...line, seq: -1 });
  }
}
