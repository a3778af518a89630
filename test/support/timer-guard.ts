// Unit files share a worker and its globals (vitest.config.ts: isolate false). A test that leaves fake
// timers installed, or a timer function replaced, makes every later file's timers in that worker never
// fire: a hook's timeout, a poll, a pause between kills. Those files then time out far from the cause
// (beside npm run bench, step-hooks and interrupted-write once each hung 20 s on timers that never fired).
// After each test the real timers are back, and a test that left them otherwise fails, named.
import { afterEach, vi } from 'vitest';

const NAMES = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'] as const;
type Timers = Record<(typeof NAMES)[number], unknown>;

// Kept on globalThis: the first file of the worker sees the real ones; a later file's copy of this module must not take a replaced one for real.
const KEY = Symbol.for('orca-test.real-timers');
const holder = globalThis as unknown as Record<PropertyKey, unknown>;
const real = (holder[KEY] ??= Object.fromEntries(NAMES.map((name) => [name, holder[name]]))) as Timers;

afterEach(() => {
  const faked = vi.isFakeTimers();
  if (faked) vi.useRealTimers();
  const replaced = NAMES.filter((name) => holder[name] !== real[name]);
  for (const name of replaced) holder[name] = real[name];
  const left = [...(faked ? ['fake timers installed'] : []), ...replaced.map((name) => `${name} replaced`)];
  if (left.length > 0) throw new Error(`This test left ${left.join(', ')}; the real timers are back for the tests after it.`);
});
