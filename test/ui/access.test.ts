import { describe, expect, it } from 'vitest';
import { checkAccess, clip, cookieName, tokenCookie, type AccessRequest } from '../../src/ui/access.js';

const policy = { port: 4321, token: 'T0k3n-0f-this-run' };
const get = (over: Partial<AccessRequest> = {}): AccessRequest => ({
  method: 'GET',
  host: '127.0.0.1:4321',
  origin: undefined,
  queryToken: null,
  headerToken: undefined,
  cookie: undefined,
  contentType: undefined,
  ...over,
});
const post = (over: Partial<AccessRequest> = {}) => get({ method: 'POST', origin: 'http://127.0.0.1:4321', cookie: `${cookieName(4321)}=${policy.token}`, contentType: 'application/json', ...over });

describe('who may use the plan viewer', () => {
  it('should let the printed URL in and set the cookie once', () => {
    expect(checkAccess(get({ queryToken: policy.token }), policy)).toEqual({ ok: true, setCookie: true });
    expect(checkAccess(get({ queryToken: policy.token, cookie: `${cookieName(4321)}=${policy.token}` }), policy)).toEqual({ ok: true, setCookie: false });
    expect(checkAccess(get({ cookie: `other=1; ${cookieName(4321)}=${policy.token}` }), policy)).toEqual({ ok: true, setCookie: false });
    expect(checkAccess(get({ headerToken: policy.token, host: 'localhost:4321' }), policy)).toEqual({ ok: true, setCookie: false });
    expect(tokenCookie(4321, policy.token)).toBe(`orca_ui_4321=${policy.token}; Path=/; HttpOnly; SameSite=Strict`);
  });

  it.each([
    ['no token', get()],
    ['a wrong token', get({ queryToken: 'guess' })],
    ['a token of the same length', get({ queryToken: 'T0k3n-0f-that-run' })],
    ["another port's cookie", get({ cookie: `${cookieName(4322)}=${policy.token}` })],
  ])('should refuse %s with 401', (_what, request) => {
    expect(checkAccess(request, policy)).toEqual({ ok: false, status: 401, message: expect.stringMatching(/^Expected the token of the URL the plan viewer printed/) });
  });

  it.each([
    ['a rebound host name', get({ host: 'evil.example:4321', queryToken: policy.token })],
    ['another port', get({ host: '127.0.0.1:80', queryToken: policy.token })],
    ['no Host', get({ host: undefined, queryToken: policy.token })],
    ['0.0.0.0', get({ host: '0.0.0.0:4321', queryToken: policy.token })],
  ])('should refuse %s as Host with 403, whatever the token', (_what, request) => {
    expect(checkAccess(request, policy)).toMatchObject({ ok: false, status: 403, message: expect.stringMatching(/^Expected the Host header to be 127\.0\.0\.1:4321 or localhost:4321/) });
  });

  it.each([
    ['another site', 'http://evil.example'],
    ['the other loopback name', 'http://localhost:4321'],
    ['another port', 'http://127.0.0.1:4322'],
    ['an opaque origin', 'null'],
  ])('should refuse an Origin of %s with 403', (_what, origin) => {
    expect(checkAccess(get({ origin, queryToken: policy.token }), policy)).toMatchObject({ ok: false, status: 403, message: expect.stringMatching(/^Expected the Origin to be http:\/\/127\.0\.0\.1:4321 \(this page\)/) });
  });

  it('should take a POST only from the page itself, with the token and a JSON body', () => {
    expect(checkAccess(post(), policy)).toEqual({ ok: true, setCookie: false });
    expect(checkAccess(post({ origin: undefined }), policy)).toMatchObject({ ok: false, status: 403 });
    expect(checkAccess(post({ cookie: undefined }), policy)).toMatchObject({ ok: false, status: 401 });
    expect(checkAccess(post({ contentType: 'application/x-www-form-urlencoded' }), policy)).toMatchObject({ ok: false, status: 415 });
    expect(checkAccess(post({ contentType: 'text/plain' }), policy)).toMatchObject({ ok: false, status: 415 });
  });

  it('should never echo more than 100 characters of what the client sent', () => {
    const long = 'x'.repeat(5000);
    for (const request of [get({ host: long }), get({ origin: long, queryToken: policy.token }), post({ contentType: long })]) {
      const decision = checkAccess(request, policy);
      expect(decision.ok).toBe(false);
      expect((decision as { message: string }).message).not.toContain('x'.repeat(101));
    }
    expect(clip('abc', 2)).toBe('ab…');
  });
});
