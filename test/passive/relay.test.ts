import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it, vi } from 'vitest';
import * as relayModule from '../../src/passive/relay.js';
import {
  gitCommonDir,
  mainInstancesOf,
  registerMainInstance,
  registerMainInstanceOf,
  relayToMain,
  type MainSink,
} from '../../src/passive/relay.js';

const PLAN = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Y';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});
const register = (commonDir: string, sink: MainSink) => {
  const unregister = registerMainInstance(commonDir, sink);
  cleanups.push(unregister);
  return unregister;
};

function fakeSink() {
  const events: unknown[] = [];
  const requests: unknown[][] = [];
  const sink: MainSink = {
    event: (event) => void events.push(event),
    beforeModelRequest: async (messages) => void requests.push(messages),
  };
  return { sink, events, requests };
}

const idle = { type: 'session.idle', properties: { sessionID: 'ses_1' } };
const transcript = [{ info: { role: 'user', sessionID: 'ses_1' }, parts: [] }];

describe('the registry of main instances', () => {
  it('should keep each registration under its common dir, and find it by that dir only', () => {
    const a = fakeSink();
    const b = fakeSink();
    register('/repos/a/.git', a.sink);
    register('/repos/b/.git', b.sink);
    expect(mainInstancesOf('/repos/a/.git')).toEqual([a.sink]);
    expect(mainInstancesOf('/repos/b/.git')).toEqual([b.sink]);
    expect(mainInstancesOf('/repos/c/.git')).toEqual([]);
  });

  it('should keep two main instances of one repository (two OpenCode directories of it), oldest first', () => {
    const first = fakeSink();
    const second = fakeSink();
    register('/repos/a/.git', first.sink);
    register('/repos/a/.git', second.sink);
    expect(mainInstancesOf('/repos/a/.git')).toEqual([first.sink, second.sink]);
  });

  it('should drop a registration when unregistered, once, leaving the others', () => {
    const first = fakeSink();
    const second = fakeSink();
    const unregisterFirst = register('/repos/a/.git', first.sink);
    const unregisterSecond = register('/repos/a/.git', second.sink);
    unregisterFirst();
    unregisterFirst();
    expect(mainInstancesOf('/repos/a/.git')).toEqual([second.sink]);
    unregisterSecond();
    expect(mainInstancesOf('/repos/a/.git')).toEqual([]);
  });

  it("should live on globalThis, so a second copy of the module (the worktree instance's) sees the first's registrations", async () => {
    const { sink } = fakeSink();
    register('/repos/shared/.git', sink);
    vi.resetModules();
    const copy = await import('../../src/passive/relay.js');
    expect(copy.mainInstancesOf).not.toBe(relayModule.mainInstancesOf); // a module of its own
    expect(copy.mainInstancesOf('/repos/shared/.git')).toEqual([sink]);
    expect((globalThis as unknown as Record<symbol, Map<string, Set<MainSink>>>)[Symbol.for('opencode-orca.main-instances')]?.get('/repos/shared/.git')?.has(sink)).toBe(true);
  });
});

describe('relayToMain', () => {
  it("should hand events and model requests to the main instance of its own repository only", async () => {
    const mine = fakeSink();
    const other = fakeSink();
    register('/repos/a/.git', mine.sink);
    register('/repos/b/.git', other.sink);
    const relay = relayToMain('/repos/a/.git', () => {});
    expect(relay.connected()).toBe(true);
    relay.event(idle);
    await relay.beforeModelRequest(transcript);
    expect(mine.events).toEqual([idle]);
    expect(mine.requests[0]).toBe(transcript); // the same array: the breaker may add its redirect message to it
    expect(other.events).toEqual([]);
    expect(other.requests).toEqual([]);
  });

  it('should find a main instance registered after the relay was made, and forget one unregistered', () => {
    const relay = relayToMain('/repos/late/.git', () => {});
    expect(relay.connected()).toBe(false);
    relay.event(idle); // nobody to tell: nothing happens
    const late = fakeSink();
    const unregister = register('/repos/late/.git', late.sink);
    relay.event(idle);
    unregister();
    relay.event(idle);
    expect(late.events).toEqual([idle]);
    expect(relay.connected()).toBe(false);
  });

  it('should do nothing, and throw nothing, without a repository', async () => {
    const relay = relayToMain(null, () => {});
    expect(relay.connected()).toBe(false);
    expect(() => relay.event(idle)).not.toThrow();
    await expect(relay.beforeModelRequest(transcript)).resolves.toBeUndefined();
  });

  it('should never throw back from a sink that throws or rejects, log each failure once, and still reach the other sinks', async () => {
    const broken: MainSink = {
      event: () => {
        throw new Error('monitor broke');
      },
      beforeModelRequest: async () => {
        throw new Error('abort failed');
      },
    };
    const healthy = fakeSink();
    register('/repos/a/.git', broken);
    register('/repos/a/.git', healthy.sink);
    const log = vi.fn();
    const relay = relayToMain('/repos/a/.git', log);
    expect(() => relay.event(idle)).not.toThrow();
    expect(() => relay.event(idle)).not.toThrow();
    await expect(relay.beforeModelRequest(transcript)).resolves.toBeUndefined();
    await expect(relay.beforeModelRequest(transcript)).resolves.toBeUndefined();
    expect(healthy.events).toHaveLength(2);
    expect(healthy.requests).toHaveLength(2);
    expect(log.mock.calls).toEqual([
      ['error', expect.stringMatching(/event observer failed .*monitor broke/)],
      ['error', expect.stringMatching(/tool-failure breaker failed .*abort failed/)],
    ]);
  });
});

describe('gitCommonDir and registerMainInstanceOf', () => {
  let root: string;
  let repo: string;
  let worktree: string;
  const git = (cwd: string, ...args: string[]) => {
    const { GIT_DIR: _dir, GIT_WORK_TREE: _tree, GIT_COMMON_DIR: _common, ...env } = process.env;
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe', env });
  };

  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'orca-relay-')));
    repo = join(root, 'repo');
    mkdirSync(join(repo, 'packages', 'web'), { recursive: true });
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'packages', 'web', 'a.txt'), 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    worktree = join(repo, '.git', 'orca-worktrees', PLAN, 'impl.1');
    git(repo, 'worktree', 'add', '-q', '--detach', worktree);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("should give the checkout, a folder of it and a linked worktree the same realpath'd common dir", async () => {
    const expected = join(repo, '.git');
    expect(await gitCommonDir(repo)).toBe(expected);
    expect(await gitCommonDir(join(repo, 'packages', 'web'))).toBe(expected);
    expect(await gitCommonDir(worktree)).toBe(expected);
    expect(await gitCommonDir(join(worktree, 'packages', 'web'))).toBe(expected);
  });

  it('should give null outside any repository and for a folder that does not exist', async () => {
    const outside = join(root, 'plain');
    mkdirSync(outside, { recursive: true });
    expect(await gitCommonDir(outside)).toBeNull();
    expect(await gitCommonDir(join(root, 'missing'))).toBeNull();
  });

  it("should register the main instance under its repository's common dir, where the worktree's relay finds it", async () => {
    const { sink, events } = fakeSink();
    const unregister = registerMainInstanceOf(join(repo, 'packages', 'web'), sink, () => {});
    cleanups.push(unregister);
    await vi.waitFor(() => expect(mainInstancesOf(join(repo, '.git'))).toEqual([sink]));
    relayToMain(await gitCommonDir(worktree), () => {}).event(idle);
    expect(events).toEqual([idle]);
    unregister();
    expect(mainInstancesOf(join(repo, '.git'))).toEqual([]);
  });

  it('should register nothing when unregistered before the common dir is known', async () => {
    const { sink } = fakeSink();
    registerMainInstanceOf(repo, sink, () => {})();
    await new Promise((done) => setTimeout(done, 300));
    expect(mainInstancesOf(join(repo, '.git'))).toEqual([]);
  });
});
