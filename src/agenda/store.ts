import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureStateDir } from '../persistence/state-dir.js';
import { describeIssues } from '../persistence/plan-file.js';
import { AgendaInputError, AgendaStateError, quote } from './errors.js';
import { storeEventSchema, type BusEmittedLine, type CreatedLine, type ItemLine, type StoreEvent } from './events.js';
import { itemStart, itemStep, type ItemSnapshot } from './fold.js';
import { matches, type MatchPattern } from './matching.js';
import { errorMessage } from '../errors.js';

/**
 * The event store (docs/design.md, "Storage"): `.opencode/agenda/events.jsonl`, append-only, one
 * JSON line per event. The file is read once when the store opens; every read after that comes from
 * memory. A line that is not JSON, fails the schema, or is refused by its item's statechart is
 * reported with its line number and skipped; the rest loads.
 */

export const agendaDir = (projectDir: string) => join(projectDir, '.opencode', 'agenda');
export const eventsPath = (projectDir: string) => join(agendaDir(projectDir), 'events.jsonl');

export interface ItemRecord {
  created: CreatedLine;
  /** Position of the creation line among the accepted lines: bus events after it can fire it. */
  seq: number;
  snapshot: ItemSnapshot;
  /** Its lines after the creation, in order. */
  lines: ItemLine[];
}

export type BusRecord = BusEmittedLine & { seq: number };

export interface LoadProblem {
  /** 1-based line number in events.jsonl. */
  line: number;
  reason: string;
  /** The start of the line (at most 100 characters). */
  text: string;
}

/** What the rails and the scheduler read: the store's memory. */
export interface AgendaReader {
  item(agendaId: string): ItemRecord | undefined;
  items(): readonly ItemRecord[];
  bus(): readonly BusRecord[];
  firstMatch(pattern: MatchPattern, afterSeq: number): BusRecord | undefined;
}

export class AgendaStore implements AgendaReader {
  readonly problems: LoadProblem[] = [];
  private readonly byId = new Map<string, ItemRecord>();
  private readonly order: ItemRecord[] = [];
  private readonly busLog: BusRecord[] = [];
  private readonly busByKind = new Map<string, BusRecord[]>();
  private seq = 0;
  /** The file ends in a torn line (a crash mid-append): the next append starts on a new line. */
  private tornTail = false;
  private readonly listeners = new Set<(lines: readonly StoreEvent[]) => void>();

  private constructor(readonly path: string) {}

  static open(projectDir: string): AgendaStore {
    const store = new AgendaStore(eventsPath(projectDir));
    if (!existsSync(store.path)) return store;
    const text = readFileSync(store.path, 'utf8');
    store.tornTail = text.length > 0 && !text.endsWith('\n');
    text.split('\n').forEach((raw, index) => {
      if (!raw.trim()) return;
      try {
        store.commit(store.stage([parseLine(raw)]));
      } catch (error) {
        store.problems.push({ line: index + 1, reason: errorMessage(error), text: raw.slice(0, 100) });
      }
    });
    return store;
  }

  /**
   * Append lines with one write call and an fsync, after checking every one against the schema
   * and its item's statechart; nothing is written or changed if one is refused. Several lines in
   * one call land together: a crash leaves all of them or (at worst) a torn last line.
   */
  append(...lines: StoreEvent[]): void {
    if (lines.length === 0) return;
    const parsed = lines.map((l) => checked(l));
    const staged = this.stage(parsed);
    ensureStateDir(dirname(this.path));
    const data = Buffer.from((this.tornTail ? '\n' : '') + parsed.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const fd = openSync(this.path, 'a');
    try {
      const written = writeSync(fd, data);
      if (written !== data.length) throw new Error(`short write to ${this.path}: ${written} of ${data.length} bytes`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.tornTail = false;
    this.commit(staged);
    for (const listener of this.listeners) listener(parsed);
  }

  /** Hear of every append once it is on disk and in memory (the inspector's item actors); returns the unsubscribe. */
  subscribe(listener: (lines: readonly StoreEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  item(agendaId: string) {
    return this.byId.get(agendaId);
  }
  items(): readonly ItemRecord[] {
    return this.order;
  }
  bus(): readonly BusRecord[] {
    return this.busLog;
  }

  firstMatch(pattern: MatchPattern, afterSeq: number): BusRecord | undefined {
    return this.busByKind.get(pattern.kind)?.find((e) => e.seq > afterSeq && matches(pattern, e));
  }

  /** Apply lines to copies of the records they touch; `commit` makes them visible. */
  private stage(lines: StoreEvent[]): Staged {
    const touched = new Map<string, ItemRecord & { added: ItemLine[] }>();
    const bus: BusRecord[] = [];
    let seq = this.seq;
    for (const line of lines) {
      if (line.type === 'bus.emitted') {
        bus.push({ ...line, seq: seq++ });
      } else if (line.type === 'agenda.created') {
        if (this.byId.has(line.agendaId) || touched.has(line.agendaId)) {
          throw new AgendaStateError(`${line.agendaId} is created twice`);
        }
        touched.set(line.agendaId, { created: line, seq: seq++, snapshot: itemStart(line), lines: [], added: [] });
      } else {
        const record = touched.get(line.agendaId) ?? this.byId.get(line.agendaId);
        if (!record) throw new AgendaStateError(`${line.type} for ${line.agendaId}, which was never created`);
        const added = touched.get(line.agendaId)?.added ?? [];
        touched.set(line.agendaId, { ...record, snapshot: itemStep(record.snapshot, line), added: [...added, line] });
        seq++;
      }
    }
    return { touched, bus, seq };
  }

  private commit({ touched, bus, seq }: Staged): void {
    for (const { added, ...next } of touched.values()) {
      const existing = this.byId.get(next.created.agendaId);
      if (existing) {
        existing.snapshot = next.snapshot;
        existing.lines.push(...added);
      } else {
        const record = { ...next, lines: [...added] };
        this.byId.set(record.created.agendaId, record);
        this.order.push(record);
      }
    }
    for (const event of bus) {
      this.busLog.push(event);
      const list = this.busByKind.get(event.kind) ?? [];
      list.push(event);
      this.busByKind.set(event.kind, list);
    }
    this.seq = seq;
  }
}

interface Staged {
  touched: Map<string, ItemRecord & { added: ItemLine[] }>;
  bus: BusRecord[];
  seq: number;
}

function parseLine(raw: string): StoreEvent {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new AgendaInputError(`not JSON (${errorMessage(error)})`);
  }
  return checked(json);
}

function checked(value: unknown): StoreEvent {
  const parsed = storeEventSchema.safeParse(value);
  if (!parsed.success) {
    throw new AgendaInputError(`not an agenda event ${quote(value)}: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}
