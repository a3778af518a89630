import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The page: plain HTML, CSS and ES modules in ./static beside this file (src/ui/static, copied to
 * dist/ui/static by `npm run build`). Only the names listed here are served: no path from a
 * request ever reaches the file system.
 */
const TYPES = { html: 'text/html; charset=utf-8', css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' } as const;

export const STATIC_FILES = [
  'index.html',
  'style.css',
  'app.js',
  'api.js',
  'dom.js',
  'format.js',
  'list.js',
  'plan.js',
  'graph.js',
  'step.js',
  'gate.js',
  'timeline.js',
  'landed.js',
] as const;

export type StaticFile = (typeof STATIC_FILES)[number];

export const isStaticFile = (name: string): name is StaticFile => (STATIC_FILES as readonly string[]).includes(name);

export const staticDir = () => fileURLToPath(new URL('./static/', import.meta.url));

/** Read once per server, on first use. */
export function staticFiles(dir = staticDir()) {
  const cache = new Map<StaticFile, Buffer>();
  return {
    get(name: StaticFile): { body: Buffer; type: string } {
      let body = cache.get(name);
      if (!body) {
        body = readFileSync(`${dir}${name}`);
        cache.set(name, body);
      }
      return { body, type: TYPES[name.slice(name.lastIndexOf('.') + 1) as keyof typeof TYPES] };
    },
  };
}
