import { describe, expect, it } from 'vitest';
import { openCodeErrorText } from '../../src/text/opencode-error.js';

describe('openCodeErrorText', () => {
  it("should read OpenCode's { name, data: { message } } as 'name: message'", () => {
    expect(openCodeErrorText({ name: 'ProviderAuthError', data: { message: 'no key' } })).toBe('ProviderAuthError: no key');
  });

  it('should read an Error by its name and message, and a string as it is', () => {
    expect(openCodeErrorText(new TypeError('bad'))).toBe('TypeError: bad');
    expect(openCodeErrorText('refused')).toBe('refused');
  });

  it('should say what a missing error means where it is read', () => {
    expect(openCodeErrorText(undefined)).toBe('unknown error');
    expect(openCodeErrorText(null, 'no response')).toBe('no response');
  });

  it('should show anything else as at most 300 characters of JSON', () => {
    expect(openCodeErrorText({ code: 7 })).toBe('{"code":7}');
    expect(openCodeErrorText({ detail: 'x'.repeat(1000) })).toHaveLength(300);
  });
});
