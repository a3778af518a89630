// An OpenAI-compatible chat-completions server whose answers come from a test's script,
// so e2e tests drive the real OpenCode binary without a real model or any network.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rememberPort } from './fresh-port.js';
import { completionBody, completionId, streamChunks, type ScriptedReply } from './openai-wire.js';
import { parseRecordedRequest, type RecordedRequest } from './scripted-request.js';

export type { ScriptedReply, ScriptedToolCall, ScriptedUsage } from './openai-wire.js';
export * from './scripted-request.js';

export type ScriptedModelOptions = {
  respond: (req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;
  /** Delay before every answer, to make races observable. */
  latencyMs?: number;
  /** Send title-generation requests to `respond` too; by default they get `titleText`. */
  scriptTitles?: boolean;
  titleText?: string;
};

export type ScriptedModel = {
  /** Base URL for the provider config, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  /** Every request in arrival order, titles included (see `kind`). */
  requests: RecordedRequest[];
  /** Requests that are not title generation. */
  chatRequests(): RecordedRequest[];
  /** Messages of every `respond` that threw (OpenCode retries those with backoff, so check here). */
  errors(): string[];
  close(): Promise<void>;
};

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const requests: RecordedRequest[] = [];
  const idPrefix = randomBytes(4).toString('hex');
  let sequence = 0;

  const server = createServer(function handleModelRequest(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
      void answerCompletion(req, res, ++sequence).catch((error) => sendError(res, 500, messageOf(error)));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'scripted' }] });
      return;
    }
    sendError(res, 404, `Expected POST /v1/chat/completions, got ${req.method} ${url.pathname}.`);
  });

  async function answerCompletion(req: IncomingMessage, res: ServerResponse, n: number): Promise<void> {
    const raw = await readBody(req);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      sendError(res, 400, `Expected a JSON chat-completions body, got: ${raw.slice(0, 200)}`);
      return;
    }
    const recorded = parseRecordedRequest(body, Date.now());
    requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.aborted = true;
    });

    let reply: ScriptedReply;
    try {
      reply =
        recorded.kind === 'title' && !options.scriptTitles
          ? { text: options.titleText ?? 'Scripted session' }
          : await options.respond(recorded);
    } catch (error) {
      recorded.error = messageOf(error);
      sendError(res, 500, `Scripted model's respond() threw: ${recorded.error}`);
      return;
    }

    // A script that answers with StructuredOutput where OpenCode offered no such tool is a script bug:
    // OpenCode would only report an unknown tool and ask again.
    if (reply.toolCalls?.some((c) => c.name === 'StructuredOutput') && !recorded.tools.includes('StructuredOutput')) {
      recorded.error = `the script answered with StructuredOutput, but the request offered no such tool (text protocol?); tools: ${recorded.tools.join(', ')}`;
      sendError(res, 500, recorded.error);
      return;
    }

    await sleep((options.latencyMs ?? 0) + (reply.delayMs ?? 0));
    // A reply released right after its client was killed (kill -9): let the event loop take in the
    // closed connection first, or the reply is written into it and the request looks answered.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    if (res.destroyed || req.socket.destroyed || req.socket.readableEnded) {
      recorded.aborted = true;
      return;
    }
    if (reply.httpError) {
      sendError(res, reply.httpError.status, reply.httpError.message);
      return;
    }
    const id = completionId(idPrefix, n);
    if (body.stream === false || body.stream === undefined) {
      sendJson(res, 200, completionBody(reply, id));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const data of streamChunks(reply, id)) res.write(`data: ${data}\n\n`);
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  rememberPort(port); // never hand this origin to an opencode server later in the run

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    chatRequests: () => requests.filter((r) => r.kind === 'chat'),
    errors: () => requests.flatMap((r) => (r.error === undefined ? [] : [r.error])),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A reply with text only. */
export function text(content: string): ScriptedReply {
  return { text: content };
}

/** A reply that calls one tool with `args` (an object, serialised for the wire). */
export function callTool(name: string, args: unknown = {}): ScriptedReply {
  return { toolCalls: [{ name, arguments: args }] };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, type: 'scripted_model_error' } });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
