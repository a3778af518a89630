import type { IncomingMessage, ServerResponse } from 'node:http';
import { OrcaError } from '../errors.js';

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
