// A client of the relay standing in for the browser page: collects every inspection event it receives.
import { WebSocket } from 'ws';
import { waitFor } from '../support/wait-for.js';

export interface StatelyMessage {
  type: string;
  name?: string;
  sessionId: string;
  rootId?: string;
  parentId?: string;
  definition?: string;
  snapshot?: { value?: unknown; status?: string; context?: unknown };
  event?: { type: string; [key: string]: unknown };
}

export interface PageClient {
  messages: StatelyMessage[];
  /** Waits until a message matches, and returns it. */
  next(predicate: (m: StatelyMessage) => boolean, description: string): Promise<StatelyMessage>;
  closed: Promise<void>;
  close(): void;
}

export async function connectPage(url: string, origin?: string): Promise<PageClient> {
  const socket = new WebSocket(url, origin ? { origin } : {});
  const messages: StatelyMessage[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as StatelyMessage));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    messages,
    next: (predicate, description) => waitFor(() => messages.find(predicate), { timeoutMs: 5_000, description }),
    closed,
    close: () => socket.terminate(),
  };
}

/** The machine config carried by an `@xstate.actor` registration. */
export const definitionOf = (m: StatelyMessage) => JSON.parse(m.definition ?? 'null') as { id: string; states: Record<string, unknown> };
