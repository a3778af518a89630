// Each unit test starts and ends with the real timers. Unit files share a worker and its globals
// (vitest.config.ts: isolate false), and a clock of fake timers once stayed installed past the file
// that made it: every later file's timers in that worker then never fired (a hook's timeout, a poll,
// a pause between kills), and those files hung 20 s far from the cause, beside npm run bench. The
// files that fake timers now run isolated; this guard puts the real ones back wherever they are
// missing, and fails a test that itself leaves its fake timers installed.
import { afterAll, afterEach, beforeEach, vi } from 'vitest';

const NAMES = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'] as const;
type Timers = Record<(typeof NAMES)[number], unknown>;

// Kept on globalThis: the worker's first file sees the real ones; a later file's copy of this module must not take a replaced one for real.
const KEY = Symbol.for('orca-test.real-timers');
const holder = globalThis as unknown as Record<PropertyKey, unknown>;
const real = (holder[KEY] ??= Object.fromEntries(NAMES.map((name) => [name, holder[name]]))) as Timers;

/** Puts the real timers back; returns the names that were not. */
function restoreReal(): string[] {
  const replaced = NAMES.filter((name) => holder[name] !== real[name]);
  for (const name of replaced) holder[name] = real[name];
  return replaced;
}

beforeEach(() => {
  const replaced = restoreReal();
  if (replaced.length > 0) console.warn(`timer-guard: ${replaced.join(', ')} found replaced as this test began (left by earlier work in this worker); the real ones are back.`);
});

afterEach(() => {
  // This test's own fake timers, still installed: its doing.
  const faked = vi.isFakeTimers();
  if (faked) vi.useRealTimers();
  const replaced = restoreReal();
  if (faked) throw new Error(`This test left its fake timers installed${replaced.length > 0 ? ` (${replaced.join(', ')})` : ''}; the real timers are back for the tests after it.`);
});

afterAll(() => void restoreReal());
