import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, OrcaError } from '../errors.js';
import { RefusedError, UsageError } from '../request-errors.js';
import { clip } from './access.js';

/** Response helpers: every answer is uncacheable, never framed, never sniffed, and loads nothing from elsewhere. */

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

export const sendJson = (res: ServerResponse, status: number, body: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

/** `{ "error": message }`; messages never carry more than ~100 characters of what the client sent. */
export const sendError = (res: ServerResponse, status: number, message: string) => sendJson(res, status, { error: message });

export class BodyTooLargeError extends OrcaError {
  override name = 'BodyTooLargeError';
}

/** The request body as text, refusing more than `maxBytes` (the rest is read and dropped, so the refusal reaches the client). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new BodyTooLargeError(`Expected a request body of at most ${maxBytes} bytes.`);
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('end', () => (size > maxBytes ? reject(tooLarge()) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

/** A POST's body read as JSON: its value, or the answer to give (413 too large, 400 not JSON, saying `expected`). */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, expected: string): Promise<{ ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string }> {
  try {
    return { ok: true, value: JSON.parse(await readBody(req, maxBytes)) as unknown };
  } catch (error) {
    if (error instanceof BodyTooLargeError) return { ok: false, status: 413, message: error.message };
    return { ok: false, status: 400, message: expected };
  }
}

/**
 * A request the shared functions turned down, as the CLI's exit codes tell them apart: 400 for a wrong
 * request (UsageError), 409 for one that cannot be done now (RefusedError); anything else is 500, logged.
 */
export function sendRequestFailure(res: ServerResponse, error: unknown, logUnexpected: (message: string) => void): void {
  if (error instanceof UsageError) return sendError(res, 400, error.message);
  if (error instanceof RefusedError) return sendError(res, 409, error.message);
  logUnexpected(errorMessage(error));
  sendError(res, 500, `Unexpected error: ${clip(errorMessage(error), 200)}`);
}
