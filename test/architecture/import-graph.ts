import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of one file: the file it reaches and whether it exists at run time. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** `import type`, or every named binding marked `type`: erased by the compiler. */
  readonly typeOnly: boolean;
}

export interface ImportGraph {
  /** Paths relative to the root, with `/`, e.g. `src/machines/plan.machine.ts`. */
  readonly files: readonly string[];
  readonly edges: readonly ImportEdge[];
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function typeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || !ts.isNamedExports(clause)) return false;
  return clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}

/** Every relative import between the `.ts` files under `root/dir` (imports of packages are left out). */
export function importGraph(root: string, dir = 'src'): ImportGraph {
  const files = sourceFiles(resolve(root, dir)).map((path) => relative(root, path).split('\\').join('/')).sort();
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const add = (specifier: string, typeOnly: boolean): void => {
      if (!specifier.startsWith('.')) return;
      const target = join(dirname(file), specifier).split('\\').join('/').replace(/\.js$/, '.ts');
      if (known.has(target)) edges.push({ from: file, to: target, typeOnly });
      else if (known.has(target.replace(/\.ts$/, '/index.ts'))) edges.push({ from: file, to: target.replace(/\.ts$/, '/index.ts'), typeOnly });
      else throw new Error(`${file}: import '${specifier}' names no file under ${dir}/`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, typeOnlyImport(node));
      else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, typeOnlyExport(node));
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument && ts.isStringLiteral(argument)) add(argument.text, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { files, edges };
}

/** The strongly connected components with more than one member (Tarjan), each sorted, largest first. */
export function cycles(nodes: readonly string[], edges: ReadonlyArray<readonly [string, string]>): string[][] {
  const next = new Map<string, string[]>(nodes.map((node) => [node, []]));
  for (const [from, to] of edges) if (from !== to) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return found.sort((a, b) => b.length - a.length);
}

/** The folder a file belongs to for the folder graph: `src/machines/plan.machine.ts` → `src/machines`. */
export function folderOf(file: string): string {
  return dirname(file);
}
