import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, topFolderOf } from './import-graph.js';
import { boundaryViolations, fileCycles, folderCycles, importersNotAllowed, runtimeEdges, type Boundary } from './rules.js';

/**
 * The layout rules of ARCHITECTURE.md, checked on the imports of src/: no import cycle between files or
 * folders, and the boundaries between the decisions (machines), the pure formats (schemas, protocol,
 * prompts) and the code that does effects. rules.test.ts shows each checker failing on a graph that
 * breaks its rule; import-graph.test.ts, the graph telling a runtime import from an erased one.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** OpenCode's packages: the plugin API, the SDK, the binary. */
const OPENCODE = ['@opencode-ai/', 'opencode-ai'];

/** What reaches outside the process: files, processes, network, terminal; and the packages built on them. */
const IO = [
  'node:fs',
  'node:child_process',
  'node:net',
  'node:http',
  'node:https',
  'node:http2',
  'node:dgram',
  'node:dns',
  'node:tls',
  'node:cluster',
  'node:worker_threads',
  'node:readline',
  'node:tty',
  'node:inspector',
  'node:repl',
  'ws',
  'proper-lockfile',
  '@statelyai/inspect',
];

/** The folders that do effects or talk to OpenCode, which the machines (the decisions) must not know. */
const EFFECT_FOLDERS = ['src/opencode/', 'src/ui/', 'src/cli/', 'src/hitl/', 'src/host/', 'src/persistence/', 'src/tools/', 'src/notices/', 'src/agenda/', 'src/passive/', 'src/workspace/', 'src/rewind/'];

const MACHINES: Boundary = { folders: ['src/machines/'], files: EFFECT_FOLDERS, packages: [...OPENCODE, ...IO] };
const PURE_FORMATS: Boundary = { folders: ['src/schemas/', 'src/protocol/', 'src/prompts/'], packages: [...OPENCODE, ...IO] };

/**
 * Orca's instance inside a step's worktree installs agents and relays events, nothing more: it must not
 * reach what runs plans, holds leases, writes files or talks to a person (docs/design.md, "Isolation and merge").
 */
const PASSIVE: Boundary = {
  folders: ['src/passive/'],
  files: [
    ...['src/composition-root.ts', 'src/host/', 'src/tools/', 'src/agenda/', 'src/ui/', 'src/inspect/', 'src/notices/', 'src/cli/', 'src/decisions/'],
    // The gates' channels: the resolver, slash commands, the permission prompt, the question dialog (its ids are only names).
    ...['src/hitl/resolve.ts', 'src/hitl/commands.ts', 'src/hitl/permission-channel.ts', 'src/hitl/native-question/register.ts', 'src/hitl/native-question/asker.ts'],
  ],
  packages: ['proper-lockfile', 'ws', '@statelyai/inspect'],
};

const mayImportCompositionRoot = (file: string): boolean =>
  file === 'src/plugin.ts' || file === 'src/composition-root.ts' || file.startsWith('src/tools/');
const mayImportPlugin = (file: string): boolean => file === 'src/index.ts';

/** One assertion per rule whose failure prints every violation, one to a paragraph. */
function expectNone(violations: readonly string[]): void {
  expect(violations.join('\n\n')).toBe('');
}

describe('the imports of src/', () => {
  const graph = importGraph(ROOT);

  it('should read every file of src/', () => {
    // A graph that lost its files would pass every rule below.
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.edges.length).toBeGreaterThan(graph.files.length);
    expect(graph.packages.some((use) => use.name === 'xstate')).toBe(true);
  });

  it('should have no import cycle between files at run time', () => {
    expectNone(fileCycles(graph.files, runtimeEdges(graph)));
  });

  it('should have no import cycle between files, counting import type', () => {
    expectNone(fileCycles(graph.files, graph.edges));
  });

  it('should have no import cycle between folders at run time', () => {
    expectNone(folderCycles(graph.files, runtimeEdges(graph)));
  });

  it('should have no import cycle between top-level folders at run time, a subfolder counting as part of its folder', () => {
    // src/hitl/native-question is part of src/hitl: notices that import it and hitl that imports notices are a cycle.
    expectNone(folderCycles(graph.files, runtimeEdges(graph), topFolderOf));
  });

  it('should keep OpenCode, IO and the folders that do effects out of src/machines/, directly or through other files', () => {
    expectNone(boundaryViolations(graph, MACHINES));
  });

  it('should keep OpenCode and IO out of src/schemas/, src/protocol/ and src/prompts/, directly or through other files', () => {
    expectNone(boundaryViolations(graph, PURE_FORMATS));
  });

  it("should keep what runs plans, leases, the agenda, the viewer and the dialogs out of src/passive/, directly or through other files", () => {
    expectNone(boundaryViolations(graph, PASSIVE));
  });

  it('should let only src/plugin.ts and src/tools/ import src/composition-root.ts', () => {
    expectNone(importersNotAllowed(graph, 'src/composition-root.ts', mayImportCompositionRoot));
  });

  it('should let only src/index.ts import src/plugin.ts', () => {
    expectNone(importersNotAllowed(graph, 'src/plugin.ts', mayImportPlugin));
  });
});
