import { timingSafeEqual } from 'node:crypto';

/**
 * Who may talk to the plan viewer. It listens on 127.0.0.1 only, and every request must
 * - name the server itself as Host (127.0.0.1:PORT or localhost:PORT): a page whose own host name
 *   was rebound to 127.0.0.1 (DNS rebinding) sends its own name and is refused;
 * - come from the page's own origin when it says where it comes from (Origin), and always for a POST;
 * - carry the random token of the printed URL: in the query (the URL itself), then in a cookie the
 *   server sets, or in an `x-orca-token` header.
 * Pure, so each rule is tested without a socket.
 */
export interface AccessRequest {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  /** `token` from the query string. */
  queryToken: string | null;
  headerToken: string | undefined;
  cookie: string | undefined;
  contentType: string | undefined;
}

export interface AccessPolicy {
  port: number;
  token: string;
}

export type AccessDecision =
  | { ok: true; setCookie: boolean }
  | { ok: false; status: 401 | 403 | 415; message: string };

export const cookieName = (port: number) => `orca_ui_${port}`;

/** Scoped to this port's name (cookies ignore ports), unreadable by scripts, never sent by other sites. */
export const tokenCookie = (port: number, token: string) => `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;

/** At most `max` characters of something a client sent, for an error message. */
export const clip = (input: string, max = 100) => (input.length <= max ? input : `${input.slice(0, max)}…`);

export function checkAccess(request: AccessRequest, { port, token }: AccessPolicy): AccessDecision {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = request.host?.toLowerCase();
  if (!host || !hosts.includes(host)) {
    return { ok: false, status: 403, message: `Expected the Host header to be ${hosts.join(' or ')}, got ${JSON.stringify(clip(request.host ?? ''))}.` };
  }
  const post = request.method === 'POST';
  if (request.origin !== undefined || post) {
    if (request.origin !== `http://${host}`) {
      return { ok: false, status: 403, message: `Expected the Origin to be http://${host} (this page), got ${JSON.stringify(clip(request.origin ?? '(none)'))}.` };
    }
  }
  const fromCookie = cookieValue(request.cookie, cookieName(port));
  const valid = [request.headerToken, fromCookie, request.queryToken ?? undefined].some((t) => t !== undefined && sameToken(t, token));
  if (!valid) {
    return { ok: false, status: 401, message: 'Expected the token of the URL the plan viewer printed (http://127.0.0.1:PORT/?token=…); open that URL.' };
  }
  // A form on another page cannot send JSON without the browser asking first (CORS preflight, which is refused).
  if (post && !/^application\/json\b/i.test(request.contentType ?? '')) {
    return { ok: false, status: 415, message: `Expected a JSON body (content-type application/json), got ${JSON.stringify(clip(request.contentType ?? '(none)'))}.` };
  }
  const setCookie = request.queryToken !== null && sameToken(request.queryToken, token) && !(fromCookie !== undefined && sameToken(fromCookie, token));
  return { ok: true, setCookie };
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
