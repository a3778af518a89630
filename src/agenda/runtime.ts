import { LEASE_STALE_MS, type Release } from '../persistence/plan-lease.js';
import { Agenda, DEFAULT_POLL_SECONDS, type ItemFilter } from './agenda.js';
import { AgendaStateError } from './errors.js';
import { postRequest, stillQueued, takeReply, takeRequests, writeReply } from './inbox.js';
import { acquireAgendaLease, AgendaLeaseHeldError } from './lease.js';
import type { AgendaLimits } from './limits.js';
import { matches, patternsOf } from './matching.js';
import type { AgendaPorts } from './ports.js';
import { applyRequest, fromAgendaFailure, toAgendaFailure, type AgendaReply, type AgendaRequest } from './requests.js';
import type { AgendaItemView, BusEventView } from './view.js';
import { errorMessage } from '../errors.js';

/**
 * The agenda of one project inside one OpenCode process. The process that holds the agenda's
 * lease opens the log, runs the scheduler and answers the inbox; any other process (a second
 * server on the project) stands by, retrying the lease, and sends what it is asked to change
 * through the inbox. Tools, commands and observers talk to this, never to Agenda directly.
 */

export interface AgendaRuntimeOptions {
  directory: string;
  limits?: Partial<AgendaLimits>;
  pollSeconds?: number;
  ports: Pick<AgendaPorts, 'execute' | 'reconcile' | 'log' | 'toast'> & Partial<Pick<AgendaPorts, 'clock'>>;
  /** How often the inbox is read (default 1 s, or the poll interval when shorter). */
  inboxMs?: number;
  leaseStaleMs?: number;
  /** How long a request sent to the holder is waited for (default 5 s). */
  replyTimeoutMs?: number;
}

export type RequestOutcome = { status: 'done'; reply: AgendaReply } | { status: 'queued'; id: string };

const DEFAULT_REPLY_TIMEOUT_MS = 5_000;
/** The first retry of a lease another process holds; each next one waits twice as long, up to half its staleness. */
const FIRST_RETRY_MS = 50;

export class AgendaRuntime {
  private agenda: Agenda | null = null;
  private release: Release | null = null;
  private timers: Array<() => void> = [];
  private standbyLogged = false;
  /** The last failure to open, logged once until it changes (a retry every few seconds must not flood the log). */
  private lastOpenError = '';
  private stopped = false;
  private readonly openListeners = new Set<(agenda: Agenda) => void | (() => void)>();
  private readonly closers: Array<() => void> = [];
  private reader: { agenda: Agenda; at: number } | null = null;

  constructor(private readonly options: AgendaRuntimeOptions) {}

  private get pollMs() {
    return (this.options.pollSeconds ?? DEFAULT_POLL_SECONDS) * 1000;
  }

  private log(level: 'info' | 'warn' | 'error', message: string) {
    this.options.ports.log(level, message);
  }

  /**
   * Take the lease and run the scheduler, or stand by and retry while another process holds it.
   * The first retries come soon and then back off to half the lease's staleness: the holder may be
   * `orca emit` or `orca agenda`, which hold the lease for a few milliseconds while they append.
   */
  start(): void {
    if (this.stopped || this.agenda) return;
    if (this.tryOpen()) return;
    const longest = (this.options.leaseStaleMs ?? LEASE_STALE_MS) / 2;
    let delay = Math.min(FIRST_RETRY_MS, longest);
    let timer: NodeJS.Timeout | undefined;
    const stopRetry = () => clearTimeout(timer);
    const retry = () => {
      if (this.tryOpen()) {
        this.timers = this.timers.filter((t) => t !== stopRetry);
        return;
      }
      delay = Math.min(delay * 2, longest);
      schedule();
    };
    const schedule = () => {
      timer = setTimeout(retry, delay);
      timer.unref();
    };
    schedule();
    this.timers.push(stopRetry);
  }

  /** Whether this process runs the agenda (holds its lease). */
  get holding(): boolean {
    return this.agenda !== null;
  }

  /** `fn` runs with the agenda once this process holds it (now, if it does); what it returns runs at stop. */
  onOpen(fn: (agenda: Agenda) => void | (() => void)): void {
    this.openListeners.add(fn);
    if (this.agenda) this.runOpenListener(fn, this.agenda);
  }

  private tryOpen(): boolean {
    if (this.stopped) return true;
    try {
      this.release = acquireAgendaLease(this.options.directory, (error) => this.lost(error), this.options.leaseStaleMs);
    } catch (error) {
      if (!(error instanceof AgendaLeaseHeldError)) {
        this.logOnce(`agenda: could not take its lease: ${errorMessage(error)}; retrying`);
        return false;
      }
      if (!this.standbyLogged) this.log('warn', `agenda: ${error.message}`);
      this.standbyLogged = true;
      return false;
    }
    try {
      this.agenda = Agenda.open({
        directory: this.options.directory,
        ...(this.options.limits ? { limits: this.options.limits } : {}),
        ports: this.options.ports,
      });
    } catch (error) {
      this.releaseLease();
      this.logOnce(`agenda: could not open .opencode/agenda: ${errorMessage(error)}; retrying`);
      return false;
    }
    this.log('info', `agenda: this process runs the agenda of ${this.options.directory}${this.standbyLogged ? ' (taken over from the process that held it)' : ''}`);
    this.agenda.start(this.options.pollSeconds ?? DEFAULT_POLL_SECONDS);
    if (this.agenda.paused) this.tellPaused(this.agenda);
    const inbox = setInterval(() => this.readInbox(), this.options.inboxMs ?? Math.min(1_000, this.pollMs));
    inbox.unref();
    this.timers.push(() => clearInterval(inbox));
    for (const fn of this.openListeners) this.runOpenListener(fn, this.agenda);
    return true;
  }

  private logOnce(message: string) {
    if (message === this.lastOpenError) return;
    this.lastOpenError = message;
    this.log('error', message);
  }

  /** A pause outlives restarts: say so at start, with what it holds back. */
  private tellPaused(agenda: Agenda) {
    const now = this.options.ports.clock?.() ?? Date.now();
    const due = agenda.list({ status: 'pending' }).filter((i) => i.nextDueAt !== null && Date.parse(i.nextDueAt) <= now).length;
    const message = `The agenda is paused${due > 0 ? `: ${due} due item(s) wait` : ''}; nothing fires until /agenda-resume or orca agenda resume.`;
    this.log('warn', `agenda: ${message}`);
    this.options.ports.toast({ variant: 'warning', title: 'Agenda paused', message });
  }

  private runOpenListener(fn: (agenda: Agenda) => void | (() => void), agenda: Agenda) {
    try {
      const close = fn(agenda);
      if (close) this.closers.push(close);
    } catch (error) {
      this.log('warn', `agenda: a listener failed when the agenda opened: ${errorMessage(error)}`);
    }
  }

  private lost(error: Error) {
    this.log('error', `agenda: its lease was lost (${error.message}); the scheduler stops in this process`);
    const agenda = this.agenda;
    this.agenda = null;
    this.release = null;
    void agenda?.stop();
    this.closeListeners();
  }

  /** Stop the scheduler (waiting for a tick in flight), stop polling, release the lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const stop of this.timers.splice(0)) stop();
    this.closeListeners();
    await this.agenda?.stop();
    this.agenda = null;
    this.releaseLease();
  }

  private closeListeners() {
    for (const close of this.closers.splice(0)) {
      try {
        close();
      } catch {
        // a closing observer has nothing left to report to
      }
    }
  }

  private releaseLease() {
    try {
      this.release?.();
    } catch (error) {
      this.log('warn', `agenda: releasing its lease failed: ${errorMessage(error)}`);
    }
    this.release = null;
  }

  /** Run the requests other processes left, and write each answer beside it. */
  readInbox(): void {
    const agenda = this.agenda;
    if (!agenda) return;
    let ticked = false;
    for (const { id, request } of takeRequests(this.options.directory, (file, reason) => this.log('warn', `agenda: ignored ${file}: ${reason}`))) {
      try {
        writeReply(this.options.directory, id, { ok: true, reply: applyRequest(agenda, request) });
        this.log('info', `agenda: ${describeRequest(request)} from the inbox`);
        ticked ||= request.op !== 'pause';
      } catch (error) {
        writeReply(this.options.directory, id, { ok: false, failure: toAgendaFailure(error) });
      }
    }
    if (ticked) agenda.tickInBackground();
  }

  /**
   * Change the agenda: at once when this process holds it (what the change made due runs now, not
   * at the next poll), else through the inbox, waiting for the holder's answer; `queued` when none came.
   */
  async request(request: AgendaRequest): Promise<RequestOutcome> {
    if (this.stopped) throw new AgendaStateError('the agenda has stopped with this OpenCode instance');
    const agenda = this.agenda;
    if (agenda) {
      const reply = applyRequest(agenda, request);
      if (request.op !== 'pause') agenda.tickInBackground();
      return { status: 'done', reply };
    }
    const id = postRequest(this.options.directory, request);
    return awaitReply(this.options.directory, id, this.options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS);
  }

  /** Orca's lifecycle event; a process that does not hold the agenda forwards only what a pending item waits for. */
  publish(kind: string, subject: string, message: string, depth: number): void {
    if (this.stopped) return;
    const agenda = this.agenda;
    if (agenda) {
      if (agenda.publish(kind, subject, message, { depth })) agenda.tickInBackground();
      return;
    }
    const listening = this.read()
      .list()
      .some((i) => i.status === 'pending' && i.trigger.type === 'event' && patternsOf(i.trigger).some((p) => matches(p, { kind, subject })));
    if (listening) postRequest(this.options.directory, { op: 'publish', kind, subject, message, depth });
  }

  list(filter?: ItemFilter): AgendaItemView[] {
    return this.read().list(filter);
  }

  events(query?: { limit?: number; kindFilter?: string }): BusEventView[] {
    return this.read().events(query);
  }

  get(agendaId: string): AgendaItemView {
    return this.read().get(agendaId);
  }

  get paused(): boolean {
    return this.read().paused;
  }

  /** The agenda in memory, or (standing by) the log as it is on disk, read at most once per poll interval. */
  private read(): Agenda {
    if (this.agenda) return this.agenda;
    const now = Date.now();
    if (!this.reader || now - this.reader.at > Math.min(this.pollMs, 1_000)) {
      this.reader = { agenda: readAgenda(this.options.directory), at: now };
    }
    return this.reader.agenda;
  }
}

/** The agenda as it is on disk, for reading only (the CLI, a process standing by): its scheduler never starts. */
export function readAgenda(directory: string, limits?: Partial<AgendaLimits>): Agenda {
  return Agenda.open({
    directory,
    ...(limits ? { limits } : {}),
    ports: {
      execute: async () => {
        throw new AgendaStateError('this copy of the agenda only reads');
      },
    },
  });
}

/** Wait for the holder's answer to a posted request. */
export async function awaitReply(directory: string, id: string, timeoutMs: number): Promise<RequestOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = takeReply(directory, id);
    if (answer) {
      if (answer.ok) return { status: 'done', reply: answer.reply };
      throw fromAgendaFailure(answer.failure);
    }
    if (Date.now() >= deadline) return { status: 'queued', id };
    await new Promise((resolve) => setTimeout(resolve, stillQueued(directory, id) ? 100 : 20));
  }
}

export function describeRequest(request: AgendaRequest): string {
  switch (request.op) {
    case 'create':
      return `create (${request.createdBy})`;
    case 'cancel':
      return `cancel ${request.agendaId}`;
    case 'emit':
      return `emit ${request.kind} (${request.source})`;
    case 'publish':
      return `${request.kind}:${request.subject}`;
    default:
      return request.op;
  }
}
