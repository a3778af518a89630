import { describe, expect, it } from 'vitest';
import type { ImportEdge, ImportGraph, PackageImport } from './import-graph.js';
import { boundaryViolations, fileCycles, folderCycles, importersNotAllowed, runtimeEdges, type Boundary } from './rules.js';
import { topFolderOf } from './import-graph.js';

// Each checker on a graph that breaks its rule, so that no rule of layout.test.ts can pass by checking nothing.

const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });
const uses = (from: string, name: string, typeOnly = false): PackageImport => ({ from, specifier: name, name, typeOnly });
const graphOf = (edges: ImportEdge[], packages: PackageImport[] = []): ImportGraph => ({
  files: [...new Set(edges.flatMap((e) => [e.from, e.to]).concat(packages.map((p) => p.from)))].sort(),
  edges,
  packages,
});

describe('fileCycles', () => {
  it('should report a cycle with its files and its shortest loop, and leave out the files outside it', () => {
    const graph = graphOf([
      edge('src/a.ts', 'src/b.ts'),
      edge('src/b.ts', 'src/c.ts'),
      edge('src/c.ts', 'src/a.ts'),
      edge('src/b.ts', 'src/a.ts'),
      edge('src/c.ts', 'src/d.ts'),
    ]);
    expect(fileCycles(graph.files, runtimeEdges(graph))).toEqual([
      'a cycle of 3 files: src/a.ts, src/b.ts, src/c.ts\nthe shortest loop in it:\n  src/a.ts → src/b.ts\n  src/b.ts → src/a.ts',
    ]);
  });

  it('should see a cycle closed by an import type only when asked to count it', () => {
    const graph = graphOf([edge('src/a.ts', 'src/b.ts'), edge('src/b.ts', 'src/a.ts', true)]);
    expect(fileCycles(graph.files, runtimeEdges(graph))).toEqual([]);
    expect(fileCycles(graph.files, graph.edges)).toEqual([
      'a cycle of 2 files: src/a.ts, src/b.ts\nthe shortest loop in it:\n  src/a.ts → src/b.ts\n  src/b.ts → src/a.ts (import type)',
    ]);
  });
});

describe('folderCycles', () => {
  it('should report two folders that import each other through different files', () => {
    const graph = graphOf([edge('src/x/a.ts', 'src/y/b.ts'), edge('src/y/c.ts', 'src/x/d.ts')]);
    expect(fileCycles(graph.files, graph.edges)).toEqual([]);
    expect(folderCycles(graph.files, graph.edges)).toEqual([
      'a cycle of 2 folders: src/x, src/y\nthe shortest loop in it:\n  src/x → src/y:\n    src/x/a.ts → src/y/b.ts\n  src/y → src/x:\n    src/y/c.ts → src/x/d.ts',
    ]);
  });

  it('should count a folder and its subfolder as two folders', () => {
    const graph = graphOf([edge('src/x/a.ts', 'src/x/sub/b.ts'), edge('src/x/sub/c.ts', 'src/x/d.ts')]);
    expect(folderCycles(graph.files, graph.edges)).toHaveLength(1);
  });

  it('should count a subfolder as part of its top-level folder when asked (topFolderOf)', () => {
    // src/x/sub → src/y → src/x: no cycle between src/x/sub, src/y and src/x, one between src/x and src/y.
    const graph = graphOf([edge('src/x/sub/a.ts', 'src/y/b.ts'), edge('src/y/b.ts', 'src/x/c.ts')]);
    expect(folderCycles(graph.files, graph.edges)).toEqual([]);
    expect(folderCycles(graph.files, graph.edges, topFolderOf)).toEqual([
      'a cycle of 2 folders: src/x, src/y\nthe shortest loop in it:\n  src/x → src/y:\n    src/x/sub/a.ts → src/y/b.ts\n  src/y → src/x:\n    src/y/b.ts → src/x/c.ts',
    ]);
    expect(topFolderOf('src/plugin.ts')).toBe('src/plugin.ts');
  });

  it('should count each file directly in src/ as a folder of its own', () => {
    // The composition root imports a folder that imports the shared error base: no cycle.
    const graph = graphOf([edge('src/composition-root.ts', 'src/x/a.ts'), edge('src/x/a.ts', 'src/errors.ts')]);
    expect(folderCycles(graph.files, graph.edges)).toEqual([]);
  });
});

describe('boundaryViolations', () => {
  const boundary: Boundary = { folders: ['src/m/'], files: ['src/io/', 'src/root.ts'], packages: ['node:fs', '@opencode-ai/'] };

  it('should report a forbidden file or package reached directly, with the import', () => {
    const graph = graphOf([edge('src/m/a.ts', 'src/io/w.ts', true), edge('src/m/a.ts', 'src/root.ts')], [uses('src/m/b.ts', '@opencode-ai/plugin')]);
    expect(boundaryViolations(graph, boundary)).toEqual([
      'src/m/b.ts → @opencode-ai/plugin',
      'src/m/a.ts → src/io/w.ts (import type)',
      'src/m/a.ts → src/root.ts',
    ]);
  });

  it('should report a forbidden package reached through an allowed folder, with the chain', () => {
    const graph = graphOf([edge('src/m/a.ts', 'src/text/t.ts', true), edge('src/text/t.ts', 'src/text/u.ts')], [uses('src/text/u.ts', 'node:fs'), uses('src/m/a.ts', 'zod')]);
    expect(boundaryViolations(graph, boundary)).toEqual(['src/m/a.ts → src/text/t.ts (import type) → src/text/u.ts → node:fs']);
  });

  it('should let files inside the boundary import each other and allowed packages', () => {
    const graph = graphOf([edge('src/m/a.ts', 'src/m/b.ts'), edge('src/io/w.ts', 'src/m/a.ts')], [uses('src/m/b.ts', 'xstate'), uses('src/io/w.ts', 'node:fs')]);
    expect(boundaryViolations(graph, boundary)).toEqual([]);
  });

  it('should fail when its folder holds no file', () => {
    expect(boundaryViolations(graphOf([edge('src/a.ts', 'src/b.ts')]), boundary)).toEqual([
      'no file under src/m/: the rule would check nothing; rename it with the folder',
    ]);
  });
});

describe('importersNotAllowed', () => {
  const fromRootOrTools = (file: string): boolean => file === 'src/plugin.ts' || file.startsWith('src/tools/');

  it('should report each import of the file from outside the allowed ones, import type too', () => {
    const graph = graphOf([
      edge('src/plugin.ts', 'src/composition-root.ts'),
      edge('src/tools/t.ts', 'src/composition-root.ts'),
      edge('src/hitl/c.ts', 'src/composition-root.ts', true),
    ]);
    expect(importersNotAllowed(graph, 'src/composition-root.ts', fromRootOrTools)).toEqual([
      'src/hitl/c.ts → src/composition-root.ts (import type)',
    ]);
  });

  it('should fail when the file is not in the graph', () => {
    expect(importersNotAllowed(graphOf([edge('src/a.ts', 'src/b.ts')]), 'src/plugin.ts', fromRootOrTools)).toEqual([
      'src/plugin.ts is not in the graph: the rule would check nothing; rename it with the file',
    ]);
  });
});
