import { appendJournal, type JournalEntry } from './journal.js';
import { errorMessage } from '../errors.js';

/**
 * A plan's journal, batched: the entries of one synchronous cascade go to disk in one append, in
 * order, right after it (a microtask). `flush` appends at once (before a process may exit).
 */
export class JournalWriter {
  private batch: JournalEntry[] = [];

  constructor(
    private readonly path: string,
    /** An append that failed: the entries are lost from the journal (never from the plan file). */
    private readonly onError: (error: Error) => void,
  ) {}

  queue(entry: JournalEntry): void {
    this.batch.push(entry);
    if (this.batch.length === 1) queueMicrotask(() => this.flush());
  }

  flush(): void {
    if (this.batch.length === 0) return;
    const entries = this.batch.splice(0, this.batch.length);
    try {
      appendJournal(this.path, entries);
    } catch (error) {
      // Thrown in a microtask it would vanish (or end the process): report it instead.
      this.onError(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }
}
