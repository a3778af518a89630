// `ws` 8 ships no types and @types/ws is not a dependency: the members used by the relay and its
// tests. In Bun, `ws` resolves to Bun's built-in implementation, which has the same surface.
declare module 'ws' {
  import type { IncomingMessage, Server } from 'node:http';

  type RawData = Buffer | ArrayBuffer | Buffer[];

  export class WebSocket {
    static readonly OPEN: 1;
    constructor(address: string, options?: { origin?: string });
    readonly readyState: 0 | 1 | 2 | 3;
    send(data: string): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'open', listener: () => void): this;
    on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    once(event: 'open' | 'close', listener: () => void): this;
    once(event: 'error', listener: (error: Error) => void): this;
  }

  export interface WebSocketServerOptions {
    server: Server;
    verifyClient?: (info: { origin: string | undefined; secure: boolean; req: IncomingMessage }) => boolean;
  }

  export class WebSocketServer {
    constructor(options: WebSocketServerOptions);
    readonly clients: Set<WebSocket>;
    close(callback?: (error?: Error) => void): void;
    on(event: 'connection', listener: (socket: WebSocket, request: IncomingMessage) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }
}
