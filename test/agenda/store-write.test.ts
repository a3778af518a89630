import * as fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { at, emitTo, harness, item, MINUTE, T0 } from './harness.js';

// Count the store's system calls: node:fs wrapped, behaviour unchanged.
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, writeSync: vi.fn(actual.writeSync), fsyncSync: vi.fn(actual.fsyncSync) };
});

describe('agenda event store writes', () => {
  it('should append several lines with a single write call and one fsync', () => {
    const h = harness();
    for (const minutes of [10, 20, 30]) h.agenda.create(item(at(T0 + minutes * MINUTE), emitTo('x')));
    vi.mocked(fs.writeSync).mockClear();
    vi.mocked(fs.fsyncSync).mockClear();
    expect(h.agenda.clear('spring cleaning')).toHaveLength(3);
    expect(fs.writeSync).toHaveBeenCalledTimes(1);
    expect(fs.fsyncSync).toHaveBeenCalledTimes(1);
    expect(h.lines().filter((l) => l.type === 'agenda.cancelled')).toHaveLength(3);
  });

  it('should write an in-process firing (started, effect, executed) in one call', async () => {
    const h = harness();
    h.agenda.create(item(at(T0), emitTo('report.ready')));
    vi.mocked(fs.writeSync).mockClear();
    await h.agenda.tick();
    expect(fs.writeSync).toHaveBeenCalledTimes(1);
    expect(h.lines().slice(1).map((l) => l.type)).toEqual(['agenda.started', 'bus.emitted', 'agenda.executed']);
  });
});
