import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderStatecharts } from '../src/statecharts/export.js';

// `npm run statecharts`: regenerate statecharts/ from the machines (a test fails when it is stale).
const dir = join(import.meta.dirname, '..', 'statecharts');
for (const [name, content] of Object.entries(renderStatecharts())) {
  writeFileSync(join(dir, name), content);
  console.log(`wrote statecharts/${name}`);
}
