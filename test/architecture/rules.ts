import { cycles, folderOf, type ImportEdge, type ImportGraph } from './import-graph.js';

/**
 * Checkers over an import graph. Each returns one line (or paragraph) per violation, naming the files and
 * imports to change, and nothing when the rule holds.
 */

const hop = (edge: { readonly to: string; readonly typeOnly: boolean }): string => `${edge.to}${edge.typeOnly ? ' (import type)' : ''}`;
const arrow = (edge: ImportEdge): string => `${edge.from} → ${hop(edge)}`;

export const runtimeEdges = (graph: ImportGraph): ImportEdge[] => graph.edges.filter((edge) => !edge.typeOnly);

/**
 * The shortest loop among `members` (a strongly connected set, so there is one): `[a, b, c]` for a → b → c → a.
 * Breadth first from each member in turn; a graph of a few hundred files makes that instant.
 */
function shortestLoop(members: readonly string[], links: ReadonlyArray<readonly [string, string]>): string[] {
  const inside = new Set(members);
  const next = new Map<string, string[]>();
  for (const [from, to] of links) if (inside.has(from) && inside.has(to) && from !== to) next.set(from, [...(next.get(from) ?? []), to]);
  let best: string[] = [];
  for (const start of members) {
    const via = new Map<string, string>();
    const queue = [start];
    for (let at = 0; at < queue.length; at += 1) {
      const node = queue[at]!;
      if ((next.get(node) ?? []).includes(start)) {
        const loop = [node];
        while (loop[0] !== start) loop.unshift(via.get(loop[0]!)!);
        if (best.length === 0 || loop.length < best.length) best = loop;
        break;
      }
      for (const target of next.get(node) ?? []) {
        if (target === start || via.has(target)) continue;
        via.set(target, node);
        queue.push(target);
      }
    }
  }
  return best;
}

const pairs = <T>(loop: readonly T[]): Array<[T, T]> => loop.map((node, i) => [node, loop[(i + 1) % loop.length]!]);

/**
 * Each cycle among files: its files, and the shortest loop in it, import by import. Cutting one import of the
 * loop may leave a smaller cycle, which the next run reports.
 */
export function fileCycles(files: readonly string[], edges: readonly ImportEdge[]): string[] {
  const links = edges.map((edge) => [edge.from, edge.to] as const);
  return cycles(files, links).map((members) => {
    const loop = pairs(shortestLoop(members, links)).map(([from, to]) => {
      // A runtime import closes the loop at run time; show `import type` only when that is all there is.
      const typeOnly = edges.filter((edge) => edge.from === from && edge.to === to).every((edge) => edge.typeOnly);
      return `  ${arrow({ from, to, typeOnly })}`;
    });
    return [`a cycle of ${members.length} files: ${members.join(', ')}`, 'the shortest loop in it:', ...loop].join('\n');
  });
}

/**
 * Each cycle among folders (see folderOf, or the unit `unitOf` gives, e.g. topFolderOf): its folders, and
 * the shortest loop in it, with every import behind each folder-to-folder link of the loop.
 */
export function folderCycles(files: readonly string[], edges: readonly ImportEdge[], unitOf: (file: string) => string = folderOf): string[] {
  const between = edges.filter((edge) => unitOf(edge.from) !== unitOf(edge.to));
  const links = between.map((edge) => [unitOf(edge.from), unitOf(edge.to)] as const);
  const folders = [...new Set(files.map(unitOf))];
  return cycles(folders, links).map((members) => {
    const loop = pairs(shortestLoop(members, links)).flatMap(([from, to]) => [
      `  ${from} → ${to}:`,
      ...between.filter((edge) => unitOf(edge.from) === from && unitOf(edge.to) === to).map((edge) => `    ${arrow(edge)}`),
    ]);
    return [`a cycle of ${members.length} folders: ${members.join(', ')}`, 'the shortest loop in it:', ...loop].join('\n');
  });
}

/** What files in some folders must not depend on. */
export interface Boundary {
  /** Folders whose files the rule is about, each ending in `/`: `src/machines/`. */
  readonly folders: readonly string[];
  /** Folders (ending in `/`) or files that they must not reach. */
  readonly files?: readonly string[];
  /** Packages that they must not reach: a name (`node:fs`, `ws`) or a scope ending in `/` (`@opencode-ai/`). */
  readonly packages?: readonly string[];
}

const matches = (node: string, patterns: readonly string[]): boolean =>
  patterns.some((pattern) => (pattern.endsWith('/') ? node.startsWith(pattern) : node === pattern));

/**
 * Every forbidden file or package that a file in the boundary's folders depends on, directly or through
 * other files, by any import (`import type` too: a type is a dependency as well), each with one shortest
 * chain of imports that reaches it.
 */
export function boundaryViolations(graph: ImportGraph, boundary: Boundary): string[] {
  const files = new Set(graph.files);
  const scope = graph.files.filter((file) => matches(file, boundary.folders));
  const empty = boundary.folders.filter((folder) => !scope.some((file) => file.startsWith(folder)));
  if (empty.length > 0) return [`no file under ${empty.join(', ')}: the rule would check nothing; rename it with the folder`];
  const forbiddenFile = (file: string): boolean => !matches(file, boundary.folders) && matches(file, boundary.files ?? []);
  const forbiddenPackage = (name: string): boolean => matches(name, boundary.packages ?? []);

  const out = new Map<string, Array<{ readonly to: string; readonly typeOnly: boolean }>>();
  for (const edge of graph.edges) out.set(edge.from, [...(out.get(edge.from) ?? []), edge]);
  for (const use of graph.packages) out.set(use.from, [...(out.get(use.from) ?? []), { to: use.name, typeOnly: use.typeOnly }]);

  // Breadth first from every file in scope at once, so each chain is a shortest one.
  const via = new Map<string, { readonly from: string; readonly typeOnly: boolean } | null>(scope.map((file) => [file, null]));
  const queue = [...scope];
  const found: string[] = [];
  for (let at = 0; at < queue.length; at += 1) {
    const node = queue[at]!;
    for (const next of out.get(node) ?? []) {
      if (via.has(next.to)) continue;
      via.set(next.to, { from: node, typeOnly: next.typeOnly });
      const isPackage = !files.has(next.to);
      if (isPackage ? forbiddenPackage(next.to) : forbiddenFile(next.to)) found.push(next.to);
      else if (!isPackage) queue.push(next.to);
    }
  }
  const chain = (target: string): string => {
    const hops: string[] = [];
    let node = target;
    for (let step = via.get(node); step; step = via.get(node)) {
      hops.unshift(hop({ to: node, typeOnly: step.typeOnly }));
      node = step.from;
    }
    return [node, ...hops].join(' → ');
  };
  return found.sort().map(chain);
}

/** Every import of `target` from a file that `allowed` does not admit (`import type` counts). */
export function importersNotAllowed(graph: ImportGraph, target: string, allowed: (file: string) => boolean): string[] {
  if (!graph.files.includes(target)) return [`${target} is not in the graph: the rule would check nothing; rename it with the file`];
  return graph.edges.filter((edge) => edge.to === target && edge.from !== target && !allowed(edge.from)).map(arrow);
}
