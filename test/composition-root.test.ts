import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginInput } from '@opencode-ai/plugin';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOrca } from '../src/composition-root.js';
import { createSessionMonitor } from '../src/opencode/session-monitor.js';

/** OpenCode's client as far as Orca reaches it (`client.<namespace>.<method>`): every call recorded (`app.log`), answered with nothing. */
function recordingClient() {
  const calls: string[] = [];
  const namespace = (name: string) =>
    new Proxy({}, { get: (_target, key) => (typeof key === 'string' ? (..._args: unknown[]) => (calls.push(`${name}.${key}`), Promise.resolve({ data: undefined, error: undefined })) : undefined) });
  const client = new Proxy({}, { get: (_target, key) => (typeof key === 'string' ? namespace(key) : undefined) });
  return { client: client as PluginInput['client'], calls };
}

describe('Orca after OpenCode disposed its instance', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  it('should call nothing of OpenCode from the moment its dispose begins (a call would boot the instance again), nor print over the TUI', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'orca-ended-'));
    dirs.push(directory);
    const { client, calls } = recordingClient();
    const orca = createOrca({ client, directory }, {}, { monitor: createSessionMonitor({ abort: async () => {}, log: () => {} }) });
    const started = calls.length;
    orca.log('info', 'before');
    orca.showToast({ title: 'Orca', message: 'before', variant: 'info' });
    expect(calls.slice(started)).toEqual(['app.log', 'tui.showToast']);

    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const ending = calls.length;
    const disposing = orca.dispose();
    orca.log('warn', 'while it disposes');
    await disposing;
    orca.log('info', 'after');
    orca.log('error', 'after, failed');
    orca.showToast({ title: 'Orca', message: 'after', variant: 'info' });
    await expect(orca.sessions.create({ title: 'after' })).rejects.toThrow('not called: Orca stopped with its OpenCode instance');

    expect(calls.slice(ending)).toEqual([]);
    expect(stderr).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
  });
});
