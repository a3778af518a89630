import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of one file: the file it reaches and whether it exists at run time. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** `import type` / `export type`: erased by the compiler. */
  readonly typeOnly: boolean;
}

/** One import of a package or a Node built-in. */
export interface PackageImport {
  readonly from: string;
  /** As written: `fs/promises`, `@opencode-ai/plugin/tool`. */
  readonly specifier: string;
  /** The package it names: `node:fs` for `fs/promises`, `@opencode-ai/plugin` for `@opencode-ai/plugin/tool`. */
  readonly name: string;
  readonly typeOnly: boolean;
}

export interface ImportGraph {
  /** Paths relative to the root, with `/`, e.g. `src/machines/plan.machine.ts`. */
  readonly files: readonly string[];
  readonly edges: readonly ImportEdge[];
  readonly packages: readonly PackageImport[];
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

// Only `import type` is erased: under verbatimModuleSyntax (tsconfig.json), `import { type A } from './a.js'`
// compiles to `import {} from './a.js'`, which still loads and runs './a.js'.
const typeOnlyImport = (node: ts.ImportDeclaration): boolean => node.importClause?.isTypeOnly ?? false;
const typeOnlyExport = (node: ts.ExportDeclaration): boolean => node.isTypeOnly;

/** `fs/promises` → `node:fs`, `node:fs` → `node:fs`, `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageName(specifier: string): string {
  if (isBuiltin(specifier)) return `node:${specifier.replace(/^node:/, '').split('/')[0]}`;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Every import of the `.ts` files under `root/dir`: of each other (edges) and of packages and built-ins. */
export function importGraph(root: string, dir = 'src'): ImportGraph {
  const files = sourceFiles(resolve(root, dir)).map((path) => relative(root, path).split('\\').join('/')).sort();
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  const packages: PackageImport[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const add = (specifier: string, typeOnly: boolean): void => {
      if (!specifier.startsWith('.')) {
        packages.push({ from: file, specifier, name: packageName(specifier), typeOnly });
        return;
      }
      const target = join(dirname(file), specifier).split('\\').join('/').replace(/\.js$/, '.ts');
      if (known.has(target)) edges.push({ from: file, to: target, typeOnly });
      else if (known.has(target.replace(/\.ts$/, '/index.ts'))) edges.push({ from: file, to: target.replace(/\.ts$/, '/index.ts'), typeOnly });
      else throw new Error(`${file}: import '${specifier}' names no file under ${dir}/`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, typeOnlyImport(node));
      else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, typeOnlyExport(node));
      else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal.text, true); // `typeof import('./x.js')` in a type
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (!argument || !ts.isStringLiteralLike(argument)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          throw new Error(`${file}:${line + 1}: import() of a computed name; the layout test can only check a literal one`);
        }
        add(argument.text, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { files, edges, packages };
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

/**
 * The unit a file belongs to in the folder graph: its folder (`src/agenda/bridges/x.ts` → `src/agenda/bridges`),
 * except that a file directly in `src/` is a unit of its own. Those are the entry points, the composition root
 * and the shared error base: the root imports every folder and every folder imports `src/errors.ts`, so one
 * `src` unit would be a cycle by construction.
 */
export function folderOf(file: string): string {
  const folder = dirname(file);
  return folder.includes('/') ? folder : file;
}

/**
 * The top-level folder a file belongs to (`src/hitl/native-question/x.ts` → `src/hitl`), a file directly in
 * `src/` again a unit of its own (see folderOf). Two subfolders of one folder may import each other; two
 * top-level folders may not, whatever subfolder the imports go through.
 */
export function topFolderOf(file: string): string {
  const [root, folder, ...rest] = file.split('/');
  return rest.length > 0 ? `${root}/${folder}` : file;
}
